/* The floor for touchd's delivery latency: a program that does nothing but write one stamped
 * line of about 1.5 KB to each of N subscribers at a fixed rate over Unix sockets — what the
 * machine itself costs, with no input, dispatch or encoding. The same client measures it and
 * touchd (Benchmarks/latency-client.c): arrival on CLOCK_MONOTONIC minus the line's "time".
 *
 *   latency-floor SOCKET CLIENTS HZ SECONDS
 *
 * Waits for CLIENTS connections, each to send one line (its subscription), then writes
 * {"type":"frame","seq":N,"time":T,…} to each in turn every 1/HZ s (T: when it was due),
 * then {"type":"bye"}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

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
	if (argc != 5) {
		fprintf(stderr, "usage: %s SOCKET CLIENTS HZ SECONDS\n", argv[0]);
		return 2;
	}
	int clients = atoi(argv[2]);
	double hz = atof(argv[3]), seconds = atof(argv[4]);
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
	unlink(argv[1]);
	if (bind(ls, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(ls, 64) < 0) {
		perror(argv[1]);
		return 1;
	}
	int *fds = calloc((size_t)clients, sizeof *fds);
	for (int i = 0; i < clients; i++) {
		fds[i] = accept(ls, NULL, NULL);
		char c;
		while (read(fds[i], &c, 1) == 1 && c != '\n')
			;
	}
	char line[2048];
	char pad[1400];
	memset(pad, 'x', sizeof pad - 1);
	pad[sizeof pad - 1] = 0;
	long long period = (long long)(1e6 / hz), next = now_us();
	long frames = (long)(hz * seconds);
	for (long seq = 1; seq <= frames; seq++) {
		next += period;
		long long t;
		while ((t = now_us()) < next) {
			long long left = next - t;
			struct timespec ts = {left / 1000000, (left % 1000000) * 1000};
			nanosleep(&ts, NULL);
		}
		/* Stamped with the time it was due, as touchd stamps a replayed frame (and as the
		 * kernel stamps a live one before the daemon wakes): the wake-up counts. */
		int n = snprintf(line, sizeof line, "{\"type\":\"frame\",\"seq\":%ld,\"time\":%lld.%06lld,\"pad\":\"%s\"}\n",
				 seq, next / 1000000, next % 1000000, pad);
		for (int i = 0; i < clients; i++)
			write_all(fds[i], line, (size_t)n);
	}
	for (int i = 0; i < clients; i++) {
		write_all(fds[i], "{\"type\":\"bye\"}\n", 15);
		close(fds[i]);
	}
	unlink(argv[1]);
	return 0;
}
