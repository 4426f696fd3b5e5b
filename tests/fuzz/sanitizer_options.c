/*
** Sanitizer defaults built into every fuzz target, so a target run by hand
** behaves as under tests/fuzz/run.sh and ctest: UBSan stops at its first
** report with a stack, and the reported-but-unfixed findings listed in
** ubsan.supp are let through (UBSAN_OPTIONS in the environment still
** overrides any of this).
*/
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1:suppressions=" HYDAE_FUZZ_DIR "/ubsan.supp";
}
