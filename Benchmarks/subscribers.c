/* Many subscribers that read everything and keep nothing: N connections to one socket,
 * connection i sending the (i mod K)th SUBSCRIBE line, all read until the daemon closes them
 * (or 30 s pass without a byte). Prints the connections, the lines and the bytes read.
 * The reader of `scripts/bench scaling`: cheap enough (epoll, one read per ready socket) that
 * the daemon, not the reader, sets the pace.
 *
 *   subscribers SOCKET N SUBSCRIBE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s SOCKET N SUBSCRIBE...\n", argv[0]);
		return 2;
	}
	int n = atoi(argv[2]), kinds = argc - 3;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	int ep = epoll_create1(0);
	for (int i = 0; i < n; i++) {
		struct sockaddr_un addr = {.sun_family = AF_UNIX};
		strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
		int fd;
		for (int tries = 0;; tries++) {
			fd = socket(AF_UNIX, SOCK_STREAM, 0);
			if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
				break;
			if (fd >= 0)
				close(fd);
			if (tries > 1000) {
				perror(argv[1]);
				return 1;
			}
			usleep(10000);
		}
		char line[4096];
		int len = snprintf(line, sizeof line, "%s\n", argv[3 + i % kinds]);
		if (write(fd, line, (size_t)len) != len) {
			perror("write");
			return 1;
		}
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	}
	static char buf[1 << 16];
	long long lines = 0, bytes = 0;
	int open = n;
	while (open > 0) {
		struct epoll_event evs[256];
		int k = epoll_wait(ep, evs, 256, 30000);
		if (k <= 0)
			break;
		for (int e = 0; e < k; e++) {
			ssize_t r = read(evs[e].data.fd, buf, sizeof buf);
			if (r <= 0) {
				epoll_ctl(ep, EPOLL_CTL_DEL, evs[e].data.fd, NULL);
				close(evs[e].data.fd);
				open--;
				continue;
			}
			bytes += r;
			for (ssize_t j = 0; j < r; j++)
				lines += buf[j] == '\n';
		}
	}
	printf("%d %lld %lld\n", n, lines, bytes);
	return open == 0 ? 0 : 1;
}
