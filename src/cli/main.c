/*
 * main.c - tensorlayout's entry point and the only exit of the program: the
 * command line is run by cli_main() (commands.c).
 */
#include "cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
