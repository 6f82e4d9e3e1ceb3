/* Measures delivery latency the same way for touchd and for the floor program: N connections
 * to one socket, each subscribing to frames; for every frame (by seq) the arrival of its last
 * copy — the Nth subscriber's — on CLOCK_MONOTONIC minus the frame's "time". Prints the count
 * and p50 / p99 / max in µs when every connection has seen "bye" (or closed); with FILE, also
 * writes there each frame's "SEQ LATENCY" (µs), one a line, in the order they completed (what
 * scripts/bench web pairs with a page's figures for the same frames).
 *
 *   latency-client SOCKET CONNECTIONS [FILE]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_SEQ 1000000

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long long field(const char *line, const char *key, int *ok)
{
	const char *p = strstr(line, key);
	*ok = 0;
	if (!p)
		return 0;
	p += strlen(key);
	long long whole = 0, frac = 0;
	int digits = 0, neg = 0;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	while (*p >= '0' && *p <= '9')
		whole = whole * 10 + (*p++ - '0');
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (digits < 6) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
			p++;
		}
	}
	while (digits < 6) {
		frac *= 10;
		digits++;
	}
	*ok = 1;
	return (neg ? -1 : 1) * (whole * 1000000 + frac);
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

struct conn {
	int fd, done;
	char buf[1 << 16];
	size_t len;
};

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s SOCKET CONNECTIONS [FILE]\n", argv[0]);
		return 2;
	}
	FILE *each = NULL;
	if (argc == 4 && !(each = fopen(argv[3], "w"))) {
		perror(argv[3]);
		return 1;
	}
	int n = atoi(argv[2]);
	struct conn *cs = calloc((size_t)n, sizeof *cs);
	int ep = epoll_create1(0);
	for (int i = 0; i < n; i++) {
		struct sockaddr_un addr = {.sun_family = AF_UNIX};
		strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
		for (int tries = 0;; tries++) {
			cs[i].fd = socket(AF_UNIX, SOCK_STREAM, 0);
			if (connect(cs[i].fd, (struct sockaddr *)&addr, sizeof addr) == 0)
				break;
			close(cs[i].fd);
			if (tries > 500) {
				perror(argv[1]);
				return 1;
			}
			usleep(10000);
		}
		const char *sub = "{\"subscribe\":{\"types\":[\"frame\"]}}\n";
		if (write(cs[i].fd, sub, strlen(sub)) < 0)
			return 1;
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (unsigned)i};
		epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
	}
	int *copies = calloc(MAX_SEQ, sizeof *copies);
	long long *last = calloc(MAX_SEQ, sizeof *last);
	long long *lat = calloc(MAX_SEQ, sizeof *lat);
	long frames = 0;
	int open = n;
	while (open > 0) {
		struct epoll_event evs[64];
		int k = epoll_wait(ep, evs, 64, 30000);
		if (k <= 0)
			break;
		long long arrival = now_us();
		for (int e = 0; e < k; e++) {
			struct conn *c = &cs[evs[e].data.u32];
			ssize_t r = read(c->fd, c->buf + c->len, sizeof c->buf - c->len - 1);
			if (r <= 0) {
				if (!c->done) {
					c->done = 1;
					open--;
				}
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				continue;
			}
			c->len += (size_t)r;
			c->buf[c->len] = 0;
			char *start = c->buf, *nl;
			while ((nl = memchr(start, '\n', c->len - (size_t)(start - c->buf)))) {
				*nl = 0;
				if (!strncmp(start, "{\"type\":\"frame\"", 15)) {
					int ok1, ok2;
					long long seq = field(start, "\"seq\":", &ok1), t = field(start, "\"time\":", &ok2);
					seq /= 1000000;
					if (ok1 && ok2 && seq > 0 && seq < MAX_SEQ) {
						copies[seq]++;
						if (arrival - t > last[seq] || copies[seq] == 1)
							last[seq] = arrival - t;
						if (copies[seq] == n) {
							lat[frames++] = last[seq];
							if (each)
								fprintf(each, "%lld %lld\n", seq, last[seq]);
						}
					}
				} else if (!strncmp(start, "{\"type\":\"bye\"", 13) && !c->done) {
					c->done = 1;
					open--;
				}
				start = nl + 1;
			}
			size_t rest = c->len - (size_t)(start - c->buf);
			memmove(c->buf, start, rest);
			c->len = rest;
		}
	}
	if (each && fclose(each) != 0) {
		perror(argv[3]);
		return 1;
	}
	if (frames == 0) {
		printf("0 frames\n");
		return 1;
	}
	qsort(lat, (size_t)frames, sizeof *lat, cmp);
	printf("%ld frames p50 %lld p99 %lld max %lld\n", frames, lat[frames / 2], lat[frames * 99 / 100], lat[frames - 1]);
	return 0;
}
