/*
 * Logging to stderr or syslog(3), filtered by level.  See log.h.
 */
#include <config.h>

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define LOG_SOCKET "/dev/log" /* syslog(3)'s, in glibc */

static const char *log_prog = "checkpoint";
static int log_syslog;
static enum log_level log_max = LOG_LVL_INFO;

static const struct {
	const char *name;
	int prio;
} log_levels[] = {
	[LOG_LVL_ERROR] = { "error", LOG_ERR },
	[LOG_LVL_WARN] = { "warn", LOG_WARNING },
	[LOG_LVL_INFO] = { "info", LOG_INFO },
	[LOG_LVL_DEBUG] = { "debug", LOG_DEBUG },
};

/*
 * Without syslog's socket, syslog(3) drops every line, the explanation of
 * a 503 included: standard error instead, said once.
 */
void
log_init(const char *prog, int use_syslog, enum log_level max)
{
	log_prog = prog;
	log_max = max;
	log_syslog = use_syslog && access(LOG_SOCKET, F_OK) == 0;
	if (log_syslog)
		openlog(prog, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	else if (use_syslog)
		log_warn("syslog's %s is not there: logging to standard "
			 "error instead",
		    LOG_SOCKET);
}

/*
 * Whether what is written to stderr is lost: it is closed, or it is
 * /dev/null, where spawn-fcgi and most daemon launchers leave it.
 */
static int
log_stderr_discarded(void)
{
	struct stat err, null;

	if (fstat(STDERR_FILENO, &err) == -1)
		return 1;
	if (stat("/dev/null", &null) == -1)
		return 0;
	return S_ISCHR(err.st_mode) && err.st_rdev == null.st_rdev;
}

int
log_init_dest(const char *prog, const char *dest, enum log_level max, char *err,
    size_t errlen)
{
	int fd;

	if (dest == NULL) {
		log_init(prog,
		    log_stderr_discarded() && access(LOG_SOCKET, F_OK) == 0,
		    max);
		return 0;
	}
	if (strcmp(dest, "stderr") == 0) {
		log_init(prog, 0, max);
		return 0;
	}
	if (strcmp(dest, "syslog") == 0) {
		log_init(prog, 1, max);
		return 0;
	}
	if (*dest != '/') {
		snprintf(err, errlen,
		    "log destination %s: not stderr, syslog or an absolute "
		    "file path",
		    dest);
		return -1;
	}
	/* Group-readable, like the database: the operator's group reads it. */
	if ((fd = open(dest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		 0640)) == -1) {
		snprintf(err, errlen, "log file %s: %s", dest, strerror(errno));
		return -1;
	}
	if (fd != STDERR_FILENO) {
		if (dup2(fd, STDERR_FILENO) == -1) {
			snprintf(err, errlen, "log file %s: %s", dest,
			    strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
	}
	log_init(prog, 0, max);
	return 0;
}

int
log_level_parse(const char *s, enum log_level *out)
{
	size_t i;

	for (i = 0; i < sizeof(log_levels) / sizeof(log_levels[0]); i++)
		if (strcasecmp(s, log_levels[i].name) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	return -1;
}

static void
log_vwrite(enum log_level lvl, const char *fmt, va_list ap)
{
	char msg[2048];
	struct timespec ts;
	struct tm tm;

	if (lvl > log_max)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_syslog) {
		syslog(log_levels[lvl].prio, "%s", msg);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	fprintf(stderr,
	    "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s[%ld]: %s: %s\n",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, ts.tv_nsec / 1000000, log_prog, (long)getpid(),
	    log_levels[lvl].name, msg);
}

/* clang-format off */
#define LOG_FN(fn, lvl)					\
	void						\
	fn(const char *fmt, ...)			\
	{						\
		va_list	 ap;				\
		va_start(ap, fmt);			\
		log_vwrite(lvl, fmt, ap);		\
		va_end(ap);				\
	}
/* clang-format on */

LOG_FN(log_error, LOG_LVL_ERROR)
LOG_FN(log_warn, LOG_LVL_WARN)
LOG_FN(log_info, LOG_LVL_INFO)
LOG_FN(log_debug, LOG_LVL_DEBUG)
