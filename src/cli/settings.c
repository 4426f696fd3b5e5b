/*
** `hydae settings`: every transient-solver setting with its type, default
** and effect, from the library's one table.
*/
#include "cli.h"

#include <stdio.h>

int hy_cli_list_settings(void)
{
    for (int i = 0; hydae_option_name(i); i++)
        printf("%-20s %-11s %-18s %s\n", hydae_option_name(i), hydae_option_type(i),
               hydae_option_default(i), hydae_option_meaning(i));
    return 0;
}
