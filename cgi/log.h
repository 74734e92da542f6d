/*
 * Logging for the three programs: to stderr (the default, which every web
 * server and systemd collect) or to syslog(3).  Per-request trouble is logged
 * here and answered to the client; only start-up errors are fatal.
 */
#ifndef LOG_H
#define LOG_H

enum log_level {
	LOG_LVL_NONE = -1, /* nothing: the program words its own errors */
	LOG_LVL_ERROR = 0, /* something failed; the operator should look */
	LOG_LVL_WARN, /* unexpected but handled */
	LOG_LVL_INFO, /* what the program did, one line per action */
	LOG_LVL_DEBUG /* everything else */
};

void log_init(const char *prog, int use_syslog, enum log_level max);
int log_level_parse(const char *s, enum log_level *out);
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LOG_H */
