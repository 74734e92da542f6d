/*
 * tests/sync-probe: how long this disk takes, right now, to make a small
 * write durable, the one wait a FULL POST cannot share away.  COUNT times
 * (1000 if not given) it overwrites one 4 KiB block of FILE with pwrite(2)
 * and calls fdatasync(2), as the committer overwrites its WAL and syncs
 * it; FILE is filled and synced first and the blocks go round a circle of
 * PROBE_BLOCKS, so that no sync grows it.  It prints one line,
 *
 *	syncs COUNT p50 US p99 US max US
 *
 * (microseconds, wall clock), and removes FILE.  scripts/bench runs it
 * before each round of the app, so that each run's FULL POSTs can be read
 * beside the disk they waited for.  Exits 2 on bad arguments and 1 if the
 * file cannot be written or synced, with a one-line message either way.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROBE_BLOCK 4096
#define PROBE_BLOCKS 16
#define PROBE_MAX 1000000

static const char *file;

static void
fail(const char *what)
{
	fprintf(stderr, "sync-probe: %s %s: %s\n", what, file, strerror(errno));
	unlink(file);
	exit(1);
}

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One block at block number n; a short write is an error too. */
static void
put(int fd, const char *block, long n)
{
	ssize_t w;

	w = pwrite(fd, block, PROBE_BLOCK, (off_t)n * PROBE_BLOCK);
	if (w != PROBE_BLOCK) {
		if (w >= 0)
			errno = ENOSPC;
		fail("write");
	}
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	static char block[PROBE_BLOCK];
	long long *us, t0;
	long count = 1000, i;
	char *end;
	int fd;

	if (argc < 2 || argc > 3 || argv[1][0] == '\0') {
		fprintf(stderr, "usage: sync-probe FILE [COUNT]\n");
		return 2;
	}
	if (argc == 3) {
		errno = 0;
		count = strtol(argv[2], &end, 10);
		if (errno != 0 || end == argv[2] || *end != '\0' || count < 1 ||
		    count > PROBE_MAX) {
			fprintf(stderr,
			    "sync-probe: COUNT must be 1 to %d, not \"%s\"\n",
			    PROBE_MAX, argv[2]);
			return 2;
		}
	}
	file = argv[1];
	if ((us = calloc((size_t)count, sizeof(*us))) == NULL) {
		fprintf(stderr, "sync-probe: out of memory\n");
		return 1;
	}
	/* O_EXCL: never overwrite a file that is not the probe's own. */
	if ((fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		fprintf(stderr, "sync-probe: open %s: %s\n", file,
		    strerror(errno));
		free(us);
		return 1;
	}
	memset(block, 'p', sizeof(block));
	for (i = 0; i < PROBE_BLOCKS; i++)
		put(fd, block, i);
	if (fsync(fd) == -1)
		fail("fsync");

	for (i = 0; i < count; i++) {
		block[0] = (char)('a' + i % 26);
		t0 = now_ns();
		put(fd, block, i % PROBE_BLOCKS);
		if (fdatasync(fd) == -1)
			fail("fdatasync");
		us[i] = (now_ns() - t0) / 1000;
	}
	close(fd);
	unlink(file);

	qsort(us, (size_t)count, sizeof(*us), cmp_ll);
	printf("syncs %ld p50 %lld p99 %lld max %lld\n", count, us[count / 2],
	    us[(count * 99) / 100], us[count - 1]);
	free(us);
	return 0;
}
