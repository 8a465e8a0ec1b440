// cmd_compile.h: the `sacc compile` command (cmd_compile.c).
#ifndef SACC_CMD_COMPILE_H
#define SACC_CMD_COMPILE_H

// Runs `sacc compile` with the arguments after "compile". Exit status: 0, 1 error, 2 usage.
int cmd_compile(int argc, char **argv);

#endif
