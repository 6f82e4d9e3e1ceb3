/* A 10-finger touchscreen made with uinput and driven at a fixed rate: the live benchmark's
 * panel (scripts/bench live, in the VM). The kernel stamps each frame when it is written here;
 * touchd and the floor (live-floor.c) read it as they would a real panel.
 *
 *   uinput-panel HZ SECONDS
 *
 * Creates "touchd live bench panel" (800 x 480, 10 slots, INPUT_PROP_DIRECT), prints its node
 * (/dev/input/eventN) on stdout, waits for SIGUSR1, then moves 10 fingers in circles, one frame
 * every 1/HZ s (absolute deadlines on CLOCK_MONOTONIC) for SECONDS, lifts them and removes the
 * device. Plain libc and the kernel's uinput interface (Linux 4.5+: UI_DEV_SETUP, UI_ABS_SETUP).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;
static void start(int sig) { (void)sig; go = 1; }

static int fd;
static struct input_event frame[64];
static int n;

static void put(int type, int code, int value)
{
	frame[n].type = (unsigned short)type;
	frame[n].code = (unsigned short)code;
	frame[n].value = value;
	n++;
}

static int flush(void)
{
	put(EV_SYN, SYN_REPORT, 0);
	ssize_t size = (ssize_t)(sizeof frame[0] * (size_t)n);
	n = 0;
	return write(fd, frame, (size_t)size) == size ? 0 : -1;
}

static void axis(int code, int max)
{
	struct uinput_abs_setup a = {.code = (unsigned short)code, .absinfo = {.minimum = 0, .maximum = max}};
	if (ioctl(fd, UI_SET_ABSBIT, code) < 0 || ioctl(fd, UI_ABS_SETUP, &a) < 0) {
		perror("UI_ABS_SETUP");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s HZ SECONDS\n", argv[0]);
		return 2;
	}
	double hz = atof(argv[1]), seconds = atof(argv[2]);
	if (hz <= 0 || hz > 10000 || seconds <= 0) {
		fprintf(stderr, "%s: HZ and SECONDS must be positive\n", argv[0]);
		return 2;
	}
	signal(SIGUSR1, start);
	fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/uinput");
		return 1;
	}
	ioctl(fd, UI_SET_EVBIT, EV_SYN);
	ioctl(fd, UI_SET_EVBIT, EV_KEY);
	ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH);
	ioctl(fd, UI_SET_EVBIT, EV_ABS);
	ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT);
	axis(ABS_X, 799);
	axis(ABS_Y, 479);
	axis(ABS_MT_SLOT, 9);
	axis(ABS_MT_POSITION_X, 799);
	axis(ABS_MT_POSITION_Y, 479);
	axis(ABS_MT_TRACKING_ID, 65535);
	struct uinput_setup setup = {.id = {.bustype = BUS_VIRTUAL, .vendor = 0x1234, .product = 0x10, .version = 1}};
	strcpy(setup.name, "touchd live bench panel");
	if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
		perror("UI_DEV_CREATE");
		return 1;
	}
	char sys[64] = "", path[128];
	ioctl(fd, UI_GET_SYSNAME(sizeof sys), sys);
	snprintf(path, sizeof path, "/sys/devices/virtual/input/%s", sys);
	for (int tries = 0; tries < 200; tries++) {   /* its event node: a directory eventN there */
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "event", 5)) {
				printf("/dev/input/%s\n", e->d_name);
				fflush(stdout);
				tries = 1000;
				break;
			}
		if (d)
			closedir(d);
		if (tries < 1000)
			usleep(10000);
	}
	while (!go)
		pause();
	long long period = (long long)(1e9 / hz);
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	long frames = (long)(hz * seconds);
	for (long f = 0; f < frames; f++) {
		for (int slot = 0; slot < 10; slot++) {
			double a = (double)f * 0.05 + slot * 0.628;
			put(EV_ABS, ABS_MT_SLOT, slot);
			if (f == 0)
				put(EV_ABS, ABS_MT_TRACKING_ID, slot + 1);
			put(EV_ABS, ABS_MT_POSITION_X, (int)(80 + slot * 70 + 30 * cos(a)));
			put(EV_ABS, ABS_MT_POSITION_Y, (int)(240 + 180 * sin(a)));
		}
		if (f == 0)
			put(EV_KEY, BTN_TOUCH, 1);
		if (flush() < 0) {
			perror("write");
			return 1;
		}
		next.tv_nsec += period;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	for (int slot = 0; slot < 10; slot++) {
		put(EV_ABS, ABS_MT_SLOT, slot);
		put(EV_ABS, ABS_MT_TRACKING_ID, -1);
	}
	put(EV_KEY, BTN_TOUCH, 0);
	flush();
	usleep(200000);   /* the readers take the lift before the device goes */
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
