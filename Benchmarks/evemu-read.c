/* The yardstick for touchd's replay speed: libevemu's own reader (Debian's libevemu-dev)
 * parsing an evemu recording — the description with evemu_read(), then every event with
 * evemu_read_event() — and nothing else. Prints the events read and the seconds it took.
 *
 *   cc -O2 Benchmarks/evemu-read.c $(pkg-config --cflags --libs evemu) -o evemu-read
 *   ./evemu-read capture.evemu
 */
#include <evemu.h>
#include <linux/input.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CAPTURE.evemu\n", argv[0]);
		return 2;
	}
	double start = now();
	FILE *fp = fopen(argv[1], "r");
	if (!fp) {
		perror(argv[1]);
		return 1;
	}
	struct evemu_device *dev = evemu_new(NULL);
	if (!dev || evemu_read(dev, fp) <= 0) {
		fprintf(stderr, "%s: not an evemu description\n", argv[1]);
		return 1;
	}
	struct input_event ev;
	long events = 0;
	while (evemu_read_event(fp, &ev) > 0)
		events++;
	double seconds = now() - start;
	evemu_delete(dev);
	fclose(fp);
	printf("%ld events %.6f s\n", events, seconds);
	return 0;
}
