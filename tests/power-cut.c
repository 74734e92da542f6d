/*
 * tests/power-cut PATH: cuts the power under the filesystem that holds
 * PATH, as far as that filesystem can tell.  It asks the filesystem to
 * shut down at once without writing its journal (FS_IOC_SHUTDOWN with
 * FS_SHUTDOWN_FLAGS_NOLOGFLUSH; ext4 and XFS take it, as xfstests'
 * "godown" does): what a sync had not yet put on the device is lost, and
 * every later access through the mount fails with EIO, so the programs
 * that had the files open carry on as they would on a machine whose disk
 * just went away.  Mounted again, the filesystem recovers its journal and
 * shows what the device holds.  t5300 cuts the power under the database
 * this way while POSTs are answered.  Root only.
 *
 * What it cannot lose: a write the filesystem had already sent to the
 * device, synced or not.  A disk's own volatile cache is not emptied.
 * What it cannot do: stop time.  An fdatasync already running when the
 * ioctl comes may return 0 for data the shutdown then discards (its size
 * and blocks were in the journal transaction the shutdown aborted), an
 * answer no process sees after a real power cut; t5300 stops the
 * processes before it cuts.
 *
 * Exits 2 on bad arguments and 1 if the ioctl fails, with a one-line
 * message either way.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* <linux/fs.h> of older kernels lacks them; the values are the ABI's. */
#ifndef FS_IOC_SHUTDOWN
#define FS_IOC_SHUTDOWN _IOR('X', 125, uint32_t)
#endif
#ifndef FS_SHUTDOWN_FLAGS_NOLOGFLUSH
#define FS_SHUTDOWN_FLAGS_NOLOGFLUSH 0x2
#endif

int
main(int argc, char **argv)
{
	uint32_t flags = FS_SHUTDOWN_FLAGS_NOLOGFLUSH;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: power-cut PATH\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY | O_CLOEXEC)) == -1) {
		fprintf(stderr, "power-cut: %s: %s\n", argv[1],
		    strerror(errno));
		return 1;
	}
	if (ioctl(fd, FS_IOC_SHUTDOWN, &flags) == -1) {
		fprintf(stderr,
		    "power-cut: shut down the filesystem of %s: %s\n", argv[1],
		    strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}
