/*
 * A tiny TAP producer for the unit tests (tests/unit-*.c), one program per
 * topic.  Each check prints "ok N - desc" or "not ok N - desc" and, on
 * failure, the file and line of the case with what was got and expected;
 * tap_done() prints the plan and gives main its exit status.  The _at forms
 * take the line of a table entry, so that a failing row names itself.
 */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void __attribute__((format(printf, 4, 0)))
tap_vresult(const char *file, int line, int ok, const char *fmt, va_list ap)
{
	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
	vprintf(fmt, ap);
	printf("\n");
	if (!ok) {
		tap_failed++;
		printf("#   Failed test at %s:%d\n", file, line);
	}
}

static inline int __attribute__((format(printf, 4, 5)))
tap_ok_at(const char *file, int line, int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(file, line, ok, fmt, ap);
	va_end(ap);
	return ok;
}

/* Prints s quoted, control and non-ASCII bytes as \xNN, or NULL. */
static inline void
tap_quote(const char *s)
{
	if (s == NULL) {
		printf("NULL");
		return;
	}
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static inline int __attribute__((format(printf, 5, 6)))
tap_is_str_at(const char *file, int line, const char *got, const char *want,
    const char *fmt, ...)
{
	va_list ap;
	int ok;

	ok = (got == NULL || want == NULL) ? got == want :
					     strcmp(got, want) == 0;
	va_start(ap, fmt);
	tap_vresult(file, line, ok, fmt, ap);
	va_end(ap);
	if (!ok) {
		printf("#          got: ");
		tap_quote(got);
		printf("\n#     expected: ");
		tap_quote(want);
		printf("\n");
	}
	return ok;
}

static inline int __attribute__((format(printf, 5, 6)))
tap_is_int_at(const char *file, int line, long long got, long long want,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(file, line, got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#          got: %lld\n#     expected: %lld\n", got,
		    want);
	return got == want;
}

#define tap_ok(ok, ...) tap_ok_at(__FILE__, __LINE__, (ok), __VA_ARGS__)
#define tap_is_str(got, want, ...) \
	tap_is_str_at(__FILE__, __LINE__, (got), (want), __VA_ARGS__)
#define tap_is_int(got, want, ...) \
	tap_is_int_at(__FILE__, __LINE__, (got), (want), __VA_ARGS__)

/* Prints the plan; the exit status for main: 0 only if every check passed. */
static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed > 0)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	fflush(stdout);
	return tap_failed > 0 ? 1 : 0;
}

#endif /* TAP_H */
