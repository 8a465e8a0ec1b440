// sa_assert.svh: `SA_ASSERT(Name, property, "message"), the one form the RTL's assertions take
// (after Ibex's prim_assert `ASSERT). Each is a concurrent assertion clocked on the rising edge of
// the module's clk_i and off while its rst_ni is low:
//   Name: assert property (@(posedge clk_i) disable iff (!rst_ni) property)
// The message names the rule ("sa_fifo: push into a full queue"). A failure prints
//   sasim-rtl: error: RTL assertion failed in <scope>.<Name>: <message>
// on stderr and stops the simulation with $stop; the models link rtl/sa_vl_stop.cpp, whose
// vl_stop exits with status 1 (Verilator's own would abort()).
// The models evaluate assertions because rtl/rtl.mk builds every one with Verilator's --assert;
// tests/rtl/lint.sh lints with and without it. Verilator 5.006 supports this form (a boolean
// property or `a |-> b` over the current cycle's values). `disable iff` is asynchronous in the
// standard; this Verilator samples it at the clock edge like the property, which is the same
// here: the harness changes rst_ni only while the clock is low. Synthesis (yosys defines
// SYNTHESIS) sees no assertions.
`ifndef SA_ASSERT_SVH
`define SA_ASSERT_SVH

`ifdef SYNTHESIS
`define SA_ASSERT(__name, __prop, __msg)
`else
`define SA_ASSERT(__name, __prop, __msg)                                                         \
  __name: assert property (@(posedge clk_i) disable iff (!rst_ni) (__prop))                     \
    else begin                                                                                 \
      $fdisplay(32'h8000_0002, "sasim-rtl: error: RTL assertion failed in %m: %s", __msg);       \
      $stop;                                                                                   \
    end
`endif

`endif
