/*
** The model-language compiler on malformed input: every file of
** tests/lang/malformed/ starts with lines "// expect: LINE:COLUMN: MESSAGE"
** and must be refused with exactly those diagnostics (as
** "file:LINE:COLUMN: error: MESSAGE", then the source line and a caret
** under COLUMN). Generated inputs: expressions nested 10,000 levels deep
** in every nesting construct (refused with a message, no stack overflow),
** a flat sum of 200,000 terms and a 1 MB model (accepted), line ends
** LF, CR LF and CR alone (same lines), 20,000 errors (50 shown), and every
** truncation and many one-byte corruptions of the example models (never a
** crash).
*/
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"

#include <dirent.h>
#include <stdlib.h>

/* Compile text; the diagnostics into *out (caller frees). */
static int compile_capture(const char *text, size_t length, const char *name, char **out)
{
    FILE *f = tmpfile();
    int n_errors = -1;
    hy_lang_experiment ex;
    hy_lang_unit *unit = hy_lang_compile_string(text, length, name, f, &ex, &n_errors);
    if (unit)
        n_errors = -n_errors - 1000; /* flag: accepted */
    hy_lang_unit_free(unit);
    *out = f ? lang_test_drain(f) : NULL;
    if (f)
        fclose(f);
    return n_errors;
}

/* The caret line under `column` of the quoted source line. */
static int caret_ok(const char *after_message, int column)
{
    const char *quoted = after_message;
    const char *caret = strchr(quoted, '\n');
    if (!caret)
        return 0;
    caret++;
    if (caret[0] != ' ')
        return 0;
    for (int k = 1; k < column; k++)
        if (caret[k] != ' ' && caret[k] != '\t')
            return 0;
    return caret[column] == '^';
}

static void check_file(const char *dir, const char *file)
{
    char path[1600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t length = 0;
    char *text = lang_test_read(path, &length);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text)
        return;
    char *diagnostics = NULL;
    int n_errors = compile_capture(text, length, file, &diagnostics);
    CHECK(n_errors >= 1, "%s: compiled without errors (status %d)", file, n_errors);
    int n_expect = 0;
    for (const char *line = text; strncmp(line, "// expect: ", 11) == 0;) {
        int l = 0, c = 0, used = 0;
        const char *end = strchr(line, '\n');
        if (!end || sscanf(line + 11, "%d:%d: %n", &l, &c, &used) != 2)
            break;
        char want[1200];
        int msg_len = (int)(end - (line + 11 + used));
        snprintf(want, sizeof want, "%s:%d:%d: error: %.*s\n", file, l, c, msg_len, line + 11 + used);
        const char *found = diagnostics ? strstr(diagnostics, want) : NULL;
        CHECK(found != NULL, "%s: missing diagnostic\n  want: %s  got:\n%s", file, want,
              diagnostics ? diagnostics : "(none)");
        if (found)
            CHECK(caret_ok(found + strlen(want), c), "%s: no caret under column %d:\n%s", file, c,
                  found);
        n_expect++;
        line = end + 1;
    }
    CHECK(n_expect >= 1, "%s: no '// expect: LINE:COLUMN: MESSAGE' header", file);
    /* The check report on the same file: errors counted, no crash. */
    FILE *f = tmpfile();
    if (f) {
        CHECK(hy_lang_check_report_string(text, length, file, f) >= 1, "%s: check report found no error",
              file);
        fclose(f);
    }
    free(diagnostics);
    free(text);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void corpus(const char *source_dir)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/tests/lang/malformed", source_dir);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (!d)
        return;
    char *names[512];
    int n = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL && n < 512) {
        size_t len = strlen(entry->d_name);
        if (len > 4 && strcmp(entry->d_name + len - 4, ".hym") == 0)
            names[n++] = strdup(entry->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], compare_names);
    CHECK(n >= 40, "only %d malformed files", n);
    for (int i = 0; i < n; i++) {
        check_file(dir, names[i]);
        free(names[i]);
    }
    printf("%d malformed files\n", n);
}

/* A buffer that grows; aborts the test on allocation failure. */
typedef struct text_buf {
    char *text;
    size_t len, cap;
} text_buf;

static void put(text_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(b->text, cap);
        if (!grown) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        b->text = grown;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n + 1);
    b->len += n;
}

static void repeat(text_buf *b, const char *s, int times)
{
    for (int i = 0; i < times; i++)
        put(b, s);
}

/* `der(x) = OPEN^depth x CLOSE^depth;` must be refused at the first token
** past HY_PARSE_MAX_DEPTH (200) levels. */
static void deep(const char *what, const char *open, const char *close, int refused_column_offset)
{
    const int depth = 10000;
    text_buf b = { 0 };
    put(&b, "model deep\n  Real x(start = 1);\nequation\n  der(x) = ");
    repeat(&b, open, depth);
    put(&b, "x");
    repeat(&b, close, depth);
    put(&b, ";\nend deep;\n");
    char *diagnostics = NULL;
    int n_errors = compile_capture(b.text, b.len, "deep.hym", &diagnostics);
    CHECK(n_errors >= 1, "%s nested %d deep was accepted", what, depth);
    char want[200];
    /* Line 4; "  der(x) = " is 11 columns; 200 levels of `open` precede the
    ** refused one, plus what the construct needs before it nests. */
    snprintf(want, sizeof want, "deep.hym:4:%d: error: expression nested too deeply (more than 200 levels)",
             12 + 200 * (int)strlen(open) + refused_column_offset);
    CHECK(diagnostics && strstr(diagnostics, want), "%s: want '%s', got:\n%.600s", what, want,
          diagnostics ? diagnostics : "(none)");
    free(diagnostics);
    free(b.text);
}

static void big_inputs(void)
{
    deep("parentheses", "(", ")", 0);
    deep("unary minus", "-", "", 0);
    deep("not", "not ", "", 0);
    deep("calls", "sin(", ")", 3);
    deep("powers", "x^", "", 1);
    deep("if-expressions", "if x > 0 then x else ", "", 0);

    /* A flat sum of 200,000 terms: parsed by a loop, compiled. */
    text_buf b = { 0 };
    put(&b, "model flat\n  Real x(start = 1);\nequation\n  der(x) = -(x");
    repeat(&b, " + x", 199999);
    put(&b, ") / 200000;\nend flat;\n");
    char *diagnostics = NULL;
    int status = compile_capture(b.text, b.len, "flat.hym", &diagnostics);
    CHECK(status <= -1000, "flat sum of 200,000 terms refused:\n%.600s", diagnostics ? diagnostics : "");
    free(diagnostics);
    free(b.text);

    /* About 1 MB: a chain of 20,000 first-order lags in one mode. */
    memset(&b, 0, sizeof b);
    put(&b, "// generated\nmodel big\n  parameter Real a = 0.5;\n");
    char line[200];
    const int n = 20000;
    for (int i = 0; i < n; i++) {
        snprintf(line, sizeof line, "  Real state_%d(start = %d, unit = \"m\") \"lag %d\";\n", i, i % 7, i);
        put(&b, line);
    }
    put(&b, "equation\n  der(state_0) = -state_0;\n");
    for (int i = 1; i < n; i++) {
        snprintf(line, sizeof line, "  der(state_%d) = -state_%d + a * state_%d;\n", i, i, i - 1);
        put(&b, line);
    }
    put(&b, "end big;\n");
    CHECK(b.len >= 1000000, "the generated model has only %zu bytes", b.len);
    FILE *f = tmpfile();
    int n_errors = f ? hy_lang_check_report_string(b.text, b.len, "big.hym", f) : -1;
    CHECK(n_errors == 0, "the 1 MB model has %d errors", n_errors);
    if (f)
        fclose(f);
    status = compile_capture(b.text, b.len, "big.hym", &diagnostics);
    CHECK(status <= -1000, "the 1 MB model was refused:\n%.600s", diagnostics ? diagnostics : "");
    free(diagnostics);
    free(b.text);
}

/* The diagnostics of text: exactly `want` among them (else shown). */
static void expect_diagnostic(const char *what, const char *text, size_t length, const char *want)
{
    char *diagnostics = NULL;
    int n_errors = compile_capture(text, length, "ends.hym", &diagnostics);
    CHECK(n_errors >= 1, "%s: accepted", what);
    CHECK(diagnostics && strstr(diagnostics, want), "%s: want '%s', got:\n%s", what, want,
          diagnostics ? diagnostics : "(none)");
    free(diagnostics);
}

/* A line ends at LF, CR LF or a CR alone (issue 13 D13: a CR-only file had
** every error on line 1); the quoted line and caret follow. */
static void line_ends(void)
{
    static const char *const ends[] = { "\n", "\r\n", "\r" };
    static const char *const names[] = { "LF", "CR LF", "CR" };
    for (int k = 0; k < 3; k++) {
        text_buf b = { 0 };
        const char *lines[] = { "model m", "  Real x(start = 1);", "equation", "  /* a",
                                "  comment */ der(x) = $ x;", "end m;" };
        for (int l = 0; l < 6; l++) {
            put(&b, lines[l]);
            put(&b, ends[k]);
        }
        char what[64];
        snprintf(what, sizeof what, "line ends %s", names[k]);
        expect_diagnostic(what, b.text, b.len,
                          "ends.hym:5:23: error: unexpected character '$'\n"
                          "   comment */ der(x) = $ x;\n"
                          "                       ^\n");
        free(b.text);
    }
    /* An unterminated string stops at a CR too. */
    const char *text = "model m\r  Real x(unit = \"m);\requation\r  der(x) = 1;\rend m;\r";
    expect_diagnostic("string cut by a CR", text, strlen(text), "ends.hym:2:17: error: unterminated string");
}

/* 20,000 bad equations: at most HY_DIAG_MAX_ERRORS (50) shown, then one
** "too many errors" line, and the input is not read on (issue 13 D5: cap
** repeated diagnostics). */
static void many_errors(void)
{
    text_buf b = { 0 };
    put(&b, "model m\n  Real x;\nequation\n");
    repeat(&b, "  der(x) = );\n", 20000);
    put(&b, "end m;\n");
    char *diagnostics = NULL;
    int n_errors = compile_capture(b.text, b.len, "many.hym", &diagnostics);
    CHECK(n_errors > 50, "many errors: %d counted", n_errors);
    int n_shown = 0;
    for (const char *p = diagnostics; p && (p = strstr(p, ": error: ")) != NULL; p++)
        n_shown++;
    CHECK(n_shown == 51, "many errors: %d shown, want 50 and 'too many errors'", n_shown);
    CHECK(diagnostics && strstr(diagnostics, "many.hym: error: too many errors, stopping\n"),
          "many errors: no 'too many errors' line");
    free(diagnostics);
    free(b.text);
}

/* Every how-many-th mutation to compile: HYDAE_MALFORMED_STRIDE, else 50
** under the native backend without its cache (HYDAE_BACKEND native or
** auto with HYDAE_NO_CACHE=1: each mutated model that compiles is one C
** compile, 130 s for all on 2 busy cores), else 1 (with the cache the
** mutants share some 30 generated sources: 2 s in a fresh cache). The
** sample is deterministic: mutations 0, stride, 2 stride... */
static long mutation_stride(void)
{
    const char *text = getenv("HYDAE_MALFORMED_STRIDE");
    if (text && text[0]) {
        long stride = strtol(text, NULL, 10);
        return stride >= 1 ? stride : 1;
    }
    const char *backend = getenv("HYDAE_BACKEND"), *no_cache = getenv("HYDAE_NO_CACHE");
    int native = backend && (strcmp(backend, "native") == 0 || strcmp(backend, "auto") == 0);
    return native && no_cache && strcmp(no_cache, "1") == 0 ? 50 : 1;
}

/* Truncations and one-byte corruptions of the examples (a deterministic
** sample of them under the native backend, mutation_stride): no crash. */
static void mutations(const char *source_dir)
{
    static const char *const examples[] = { "string_pendulum", "bouncing_ball", "relay",
                                            "algebraic_loop", "half_wave_rectifier", "sampled_pi",
                                            "two_spring_masses", "pendulum_cartesian",
                                            "string_pendulum_cartesian" };
    static const char replacements[] = { ';', '(', ')', '=', 'x', ' ', '\0', '"', '/', '*', '<' };
    const long stride = mutation_stride();
    long n_runs = 0, n_mutations = 0;
    for (size_t e = 0; e < sizeof examples / sizeof examples[0]; e++) {
        char path[1600];
        snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, examples[e]);
        size_t length = 0;
        char *text = lang_test_read(path, &length);
        CHECK(text != NULL, "cannot read %s", path);
        if (!text)
            continue;
        char *copy = malloc(length + 1);
        if (!copy) {
            free(text);
            continue;
        }
        for (size_t cut = 0; cut < length; cut += 3) {
            if (n_mutations++ % stride != 0)
                continue;
            int n_errors = 0;
            hy_lang_unit *unit = hy_lang_compile_string(text, cut, "cut.hym", NULL, NULL, &n_errors);
            CHECK(unit == NULL || n_errors == 0, "%s cut at %zu: unit with errors", examples[e], cut);
            hy_lang_unit_free(unit);
            n_runs++;
        }
        for (size_t at = 0; at < length; at += 5) {
            if (n_mutations++ % stride != 0)
                continue;
            memcpy(copy, text, length);
            copy[at] = replacements[(at / 5) % sizeof replacements];
            int n_errors = 0;
            hy_lang_unit *unit = hy_lang_compile_string(copy, length, "bent.hym", NULL, NULL, &n_errors);
            hy_lang_unit_free(unit);
            n_runs++;
        }
        free(copy);
        free(text);
    }
    CHECK(n_runs > 1000 / stride, "only %ld mutated compiles", n_runs);
    printf("%ld mutated compiles (every %ld. of %ld mutations)\n", n_runs, stride, n_mutations);
}

int main(void)
{
    char source_dir[1024];
    lang_test_source_dir(source_dir, sizeof source_dir);
    corpus(source_dir);
    big_inputs();
    line_ends();
    many_errors();
    mutations(source_dir);
    return CHECK_DONE();
}
