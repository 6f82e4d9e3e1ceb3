/* The floor for touchd's live latency (scripts/bench live, in the VM): a program that reads the
 * same kernel device as touchd, with libevdev (timestamps on CLOCK_MONOTONIC, as touchd sets
 * them), and at each SYN_REPORT writes one line of about 1.5 KB to each of N subscribers, stamped
 * with that SYN_REPORT's kernel timestamp: what reading a real device and writing to 16 sockets
 * costs, with no conditioning, hit-testing, dispatch or encoding. The same client measures it
 * and touchd (latency-client.c): arrival on CLOCK_MONOTONIC minus the line's "time".
 *
 *   live-floor DEVICE SOCKET CLIENTS
 *
 * Opens DEVICE, waits for CLIENTS connections (each sends one line, its subscription), prints
 * "ready" on stdout, then writes {"type":"frame","seq":N,"time":T,…} per frame until the device
 * goes away (ENODEV), then {"type":"bye"} to each.
 */
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s DEVICE SOCKET CLIENTS\n", argv[0]);
		return 2;
	}
	int dfd = open(argv[1], O_RDONLY | O_CLOEXEC);
	struct libevdev *dev = NULL;
	if (dfd < 0 || libevdev_new_from_fd(dfd, &dev) < 0 || libevdev_set_clock_id(dev, CLOCK_MONOTONIC) < 0) {
		perror(argv[1]);
		return 1;
	}
	int clients = atoi(argv[3]);
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	strncpy(addr.sun_path, argv[2], sizeof addr.sun_path - 1);
	unlink(argv[2]);
	if (bind(ls, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(ls, 64) < 0) {
		perror(argv[2]);
		return 1;
	}
	int *fds = calloc((size_t)clients, sizeof *fds);
	for (int i = 0; i < clients; i++) {
		fds[i] = accept(ls, NULL, NULL);
		char c;
		while (read(fds[i], &c, 1) == 1 && c != '\n')
			;
	}
	printf("ready\n");
	fflush(stdout);
	char line[2048], pad[1400];
	memset(pad, 'x', sizeof pad - 1);
	pad[sizeof pad - 1] = 0;
	long seq = 0;
	for (;;) {
		struct input_event ev;
		int rc = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL | LIBEVDEV_READ_FLAG_BLOCKING, &ev);
		if (rc == LIBEVDEV_READ_STATUS_SYNC) {   /* SYN_DROPPED: catch up, as touchd would */
			while (rc == LIBEVDEV_READ_STATUS_SYNC)
				rc = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_SYNC, &ev);
			continue;
		}
		if (rc == -EAGAIN || rc == -EINTR)
			continue;
		if (rc < 0)
			break;   /* -ENODEV: the panel went away */
		if (ev.type != EV_SYN || ev.code != SYN_REPORT)
			continue;
		int n = snprintf(line, sizeof line, "{\"type\":\"frame\",\"seq\":%ld,\"time\":%lld.%06ld,\"pad\":\"%s\"}\n",
				 ++seq, (long long)ev.input_event_sec, (long)ev.input_event_usec, pad);
		for (int i = 0; i < clients; i++)
			write_all(fds[i], line, (size_t)n);
	}
	for (int i = 0; i < clients; i++) {
		write_all(fds[i], "{\"type\":\"bye\"}\n", 15);
		close(fds[i]);
	}
	unlink(argv[2]);
	libevdev_free(dev);
	return 0;
}
