/*
 * checkpointctl doctor on PostgreSQL: whether each program's system user
 * (the runner's, the web server's) connects as its role with its own
 * credentials, tried for real.  See ctl_setup.h.
 *
 * The operator's URI names the owner, and root's environment is not the
 * programs': what matters is what libpq does as that user.  So a child
 * process becomes the user (its groups, gid and uid), with the
 * environment the user's program would have (HOME its home, for libpq's
 * ~/.pgpass; PGPASSFILE the user's file of the documented layout,
 * <dir>/pgpass-<user>, when there is one; no PGPASSWORD), and opens the
 * store at the URI rewritten for the role: the same hosts, database and
 * parameters, the role as its user, without a password or a passfile.
 * The child's one line comes back through a pipe.
 */
#include <config.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_setup.h"

/* A program to check: its words, its system user, its role. */
struct pg_program {
	const char *what, *user, *role;
};

/*
 * Copies the query parameters of q (after its '?') but those that would
 * speak for the operator rather than the program: user, password and
 * passfile.  Returns the length written.
 */
static size_t
uri_params(const char *q, char *out, size_t len)
{
	static const char *const drop[] = { "user=", "password=", "passfile=" };
	size_t n = 0, i, plen;
	const char *p = q, *amp;
	int keep;

	while (*p != '\0') {
		amp = strchr(p, '&');
		plen = amp != NULL ? (size_t)(amp - p) : strlen(p);
		keep = 1;
		for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
			if (strncmp(p, drop[i], strlen(drop[i])) == 0)
				keep = 0;
		if (keep && n < len)
			n += (size_t)snprintf(out + n, len - n, "%c%.*s",
			    n == 0 ? '?' : '&', (int)plen, p);
		p += plen + (amp != NULL);
	}
	return n;
}

/*
 * uri with role as its user: postgresql://[userinfo@]hosts[/db][?params].
 * -1 when it does not fit.
 */
static int
uri_as(const char *uri, const char *role, char *out, size_t len)
{
	const char *sep = strstr(uri, "://"), *host, *end, *at;
	size_t n, have;

	if (sep == NULL)
		return -1;
	host = sep + 3;
	end = host + strcspn(host, "/?");
	if ((at = memchr(host, '@', (size_t)(end - host))) != NULL)
		host = at + 1;
	n = strcspn(end, "?");
	if ((size_t)snprintf(out, len, "%.*s%s@%.*s%.*s", (int)(sep + 3 - uri),
		uri, role, (int)(end - host), host, (int)n, end) >= len)
		return -1;
	have = strlen(out);
	if (end[n] == '?')
		have += uri_params(end + n + 1, out + have, len - have);
	return have + 1 >= len ? -1 : 0;
}

/* The child: becomes pw, opens uri, writes its line to fd. */
static void
pg_child(const struct passwd *pw, const char *pgpass, const char *uri, int fd)
{
	struct store_opts o = { 0 };
	struct store *s;
	char err[1024];
	int ok = 0;

	if (geteuid() != pw->pw_uid &&
	    (initgroups(pw->pw_name, pw->pw_gid) == -1 ||
		setgid(pw->pw_gid) == -1 || setuid(pw->pw_uid) == -1)) {
		dprintf(fd, "cannot become %s: %s", pw->pw_name,
		    strerror(errno));
		_exit(1);
	}
	setenv("HOME", pw->pw_dir, 1);
	unsetenv("PGPASSWORD");
	if (pgpass != NULL)
		setenv("PGPASSFILE", pgpass, 1);
	else
		unsetenv("PGPASSFILE");
	o.path = uri;
	if (store_open(&o, &s, err, sizeof(err)) != STORE_OK)
		dprintf(fd, "%s", err);
	else {
		dprintf(fd, "schema version %d", store_schema_version(s));
		ok = 1;
	}
	_exit(ok ? 0 : 1);
}

/*
 * Runs the child for pw and reads its line into line.  1: connected,
 * 0: refused (line says why), -1: could not try.
 */
static int
pg_try(const struct passwd *pw, const char *pgpass, const char *uri, char *line,
    size_t len)
{
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd) == -1 || (pid = fork()) == -1) {
		snprintf(line, len, "%s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		pg_child(pw, pgpass, uri, fd[1]);
	}
	close(fd[1]);
	while (got + 1 < (ssize_t)len &&
	    (n = read(fd[0], line + got, len - 1 - (size_t)got)) > 0)
		got += n;
	line[got] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* One program's line.  Returns 1 when it is wrong. */
static int
pg_program(const struct pg_program *p, const char *uri, const char *pgpass_dir)
{
	char as[2048], file[PATH_MAX], line[1100];
	const char *pgpass = NULL;
	struct passwd *pw;
	struct stat sb;
	int rc;

	if ((pw = getpwnam(p->user)) == NULL)
		return 0; /* said by the file checks, or not asked */
	if (uri_as(uri, p->role, as, sizeof(as)) == -1) {
		ctl_doctor_line(0, "%s user %s: the URI is too long to check",
		    p->what, p->user);
		return 1;
	}
	snprintf(file, sizeof(file), "%s/pgpass-%s", pgpass_dir, p->user);
	if (stat(file, &sb) == 0)
		pgpass = file;
	if (geteuid() != 0 && geteuid() != pw->pw_uid) {
		printf("note: %s user %s's connection as %s was not tried: "
		       "only root may act as that user\n",
		    p->what, p->user, p->role);
		return 0;
	}
	rc = pg_try(pw, pgpass, as, line, sizeof(line));
	if (rc == 1)
		ctl_doctor_line(1, "%s user %s connects to %s with %s: %s",
		    p->what, p->user, as,
		    pgpass != NULL ? pgpass : "its ~/.pgpass", line);
	else
		ctl_doctor_line(0,
		    "%s user %s cannot connect with %s: %s: give it a "
		    "pgpass of its own, mode 0600, with a line "
		    "HOST:PORT:DATABASE:%s:PASSWORD for the URI's host as "
		    "written, in %s/pgpass-%s (its program's PGPASSFILE) "
		    "(scripts/README.examples, PostgreSQL)",
		    p->what, p->user, pgpass != NULL ? pgpass : "its ~/.pgpass",
		    line, p->role, pgpass_dir, p->user);
	return rc != 1;
}

int
ctl_doctor_pg(const char *uri, const char *user, const char *web_user,
    const struct ctl_pg_roles *r)
{
	const struct pg_program p[] = {
		{ "runner", user, r->runner },
		{ "web server", web_user, r->web },
	};
	size_t i;
	int wrong = 0;

	if (!store_is_uri(uri))
		return 0;
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (p[i].user != NULL)
			wrong |= pg_program(&p[i], uri, r->pgpass_dir);
	return wrong;
}
