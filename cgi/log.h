/*
 * Logging for the three programs: to stderr (the default, which every web
 * server and systemd collect) or to syslog(3).  Per-request trouble is logged
 * here and answered to the client; only start-up errors are fatal.
 */
#ifndef LOG_H
#define LOG_H

#include <stddef.h>

enum log_level {
	LOG_LVL_NONE = -1, /* nothing: the program words its own errors */
	LOG_LVL_ERROR = 0, /* something failed; the operator should look */
	LOG_LVL_WARN, /* unexpected but handled */
	LOG_LVL_INFO, /* what the program did, one line per action */
	LOG_LVL_DEBUG /* everything else */
};

void log_init(const char *prog, int use_syslog, enum log_level max);
/*
 * Where the log goes, by dest: "stderr", "syslog", an absolute file path
 * (appended to), or NULL for the default: stderr, unless it is closed or
 * /dev/null (as spawn-fcgi leaves it) and syslog's /dev/log exists.
 * Returns -1 with err set when dest is none of these or the file cannot
 * be opened; then nothing was changed.
 */
int log_init_dest(const char *prog, const char *dest, enum log_level max,
    char *err, size_t errlen);
int log_level_parse(const char *s, enum log_level *out);
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LOG_H */
