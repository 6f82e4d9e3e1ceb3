/* The SDL kiosk, headless, against `touchd run --replay` of examples/kiosk's capture (the same
 * capture as the pygame kiosk's test): the selections, the list's offset, the final screen,
 * and the pixels of its screenshots.
 *
 *   TOUCHD_BINARY=path/to/touchd TOUCHD_TOP=repository test_kiosk path/to/kiosk
 */
#include "harness.h"

#include <SDL.h>

/* The kiosk's state file: the value of key, or NULL. */
static const char *state_value(const char *state, const char *key) {
    static char value[512];
    char want[64];
    snprintf(want, sizeof want, "\n%s=", key);
    char text[4096] = "\n";
    FILE *f = fopen(state, "r");
    if (!f) FAIL("%s: %s", state, strerror(errno));
    size_t n = fread(text + 1, 1, sizeof text - 2, f);
    text[n + 1] = '\0';
    fclose(f);
    const char *at = strstr(text, want);
    if (!at) return NULL;
    at += strlen(want);
    size_t len = strcspn(at, "\n");
    snprintf(value, sizeof value, "%.*s", (int)len, at);
    return value;
}

static SDL_Surface *load(const char *path) {
    SDL_Surface *s = SDL_LoadBMP(path);
    if (!s) FAIL("%s: %s", path, SDL_GetError());
    SDL_Surface *rgb = SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_XRGB8888, 0);
    SDL_FreeSurface(s);
    if (!rgb) FAIL("%s: %s", path, SDL_GetError());
    return rgb;
}

#define CHECK_PIXEL(s, x, y, R, G, B)                                                          \
    do {                                                                                       \
        Uint32 p_ = ((Uint32 *)((Uint8 *)(s)->pixels + (y) * (s)->pitch))[x];                  \
        Uint8 r_, g_, b_;                                                                      \
        SDL_GetRGB(p_, (s)->format, &r_, &g_, &b_);                                            \
        if (r_ != (R) || g_ != (G) || b_ != (B))                                               \
            FAIL("pixel (%d, %d) is (%d, %d, %d), expected (%d, %d, %d)", (x), (y), r_, g_, b_, (R), (G), (B)); \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_kiosk path/to/kiosk\n");
        return 2;
    }
    begin("SDL kiosk, headless, on examples/kiosk's capture", 60);
    const char *sock = temp_path("kiosk.sock"), *state = temp_path("state"), *shots = temp_path("shot");
    const char *args[] = {"--config", repo_path("examples/kiosk/touchd.json"),
                          "--replay", repo_path("examples/kiosk/kiosk-taps.events"),
                          "--device-info", repo_path("Tests/Fixtures/virtual-800x480.desc"),
                          "--speed", "1", "--wait-clients", "1", "--exit-at-end", NULL};
    pid_t daemon = start_daemon(sock, args);
    pid_t kiosk = fork();
    if (kiosk == 0) {
        execl(argv[1], argv[1], "--socket", sock, "--headless", "--exit-on-bye", "--screenshots", shots,
              "--state", state, (char *)NULL);
        _exit(127);
    }
    int status;
    CHECK_INT(waitpid(kiosk, &status, 0), kiosk);
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 0);
    CHECK_INT(wait_daemon(daemon), 0);

    /* The capture taps Coffee, List →, drags the list up 300 points (it decelerates and rests at
       594.419), taps (400, 300) — row 14, at content y 784…836, on screen 269.6…321.6 — then
       ← Back and Tea. */
    CHECK_STR(state_value(state, "selections"), "coffee row-14 tea");
    CHECK_STR(state_value(state, "selection_offsets"), "0.000 594.419 594.419");
    CHECK_STR(state_value(state, "screen"), "menu");
    CHECK_STR(state_value(state, "selected"), "tea");
    CHECK_STR(state_value(state, "offset"), "594.419");
    CHECK_STR(state_value(state, "fingers_left"), "0");
    CHECK(atoi(state_value(state, "scrolls")) > 10);

    SDL_Surface *list = load(temp_path("shot-2.bmp"));     /* drawn as row 14 was selected */
    CHECK_INT(list->w, 800);
    CHECK_INT(list->h, 480);
    CHECK_PIXEL(list, 400, 300, 40, 170, 90);      /* row 14: selected (green) */
    CHECK_PIXEL(list, 400, 275, 40, 170, 90);
    CHECK_PIXEL(list, 400, 235, 62, 74, 98);       /* row 13 (content 724…776: screen 209.6…261.6) */
    CHECK_PIXEL(list, 400, 265, 24, 28, 36);       /* the gap between rows 13 and 14 */
    CHECK_PIXEL(list, 100, 40, 62, 74, 98);        /* ← Back */
    CHECK_PIXEL(list, 400, 40, 36, 42, 56);        /* the header */
    CHECK_PIXEL(list, 10, 300, 24, 28, 36);        /* left of the rows */
    SDL_FreeSurface(list);

    SDL_Surface *menu = load(temp_path("shot-final.bmp"));
    CHECK_PIXEL(menu, 580, 180, 40, 170, 90);      /* Tea: selected */
    CHECK_PIXEL(menu, 220, 180, 62, 74, 98);       /* Coffee */
    CHECK_PIXEL(menu, 220, 380, 62, 74, 98);       /* Juice */
    CHECK_PIXEL(menu, 580, 380, 62, 74, 98);       /* List → */
    CHECK_PIXEL(menu, 400, 280, 24, 28, 36);       /* between the buttons */
    CHECK_PIXEL(menu, 400, 40, 36, 42, 56);        /* the header */
    SDL_FreeSurface(menu);

    SDL_Surface *first = load(temp_path("shot-1.bmp"));
    CHECK_PIXEL(first, 220, 180, 40, 170, 90);     /* Coffee selected, on the menu */
    SDL_FreeSurface(first);
    end();

    /* --calibrate: the same taps are the calibration's (touchd's targets drawn one by one), so
       no button sees them and nothing is selected. */
    begin("SDL kiosk, headless, calibrating on examples/kiosk's capture", 60);
    const char *cstate = temp_path("calibrating"), *cshots = temp_path("cshot");
    daemon = start_daemon(sock, args);
    kiosk = fork();
    if (kiosk == 0) {
        execl(argv[1], argv[1], "--socket", sock, "--headless", "--exit-on-bye", "--calibrate", "kiosk-taps",
              "--screenshots", cshots, "--state", cstate, (char *)NULL);
        _exit(127);
    }
    CHECK_INT(waitpid(kiosk, &status, 0), kiosk);
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 0);
    CHECK_INT(wait_daemon(daemon), 0);
    CHECK_STR(state_value(cstate, "selections"), "");
    CHECK_STR(state_value(cstate, "screen"), "menu");
    /* The capture's six taps are not on the targets: the fifth shows the third was a misclick,
       the sixth the second, which is asked again (drawn orange) as the capture ends; the daemon
       stopping ends the calibration (calibrationEnded, shutdown), and the kiosk's screenshot
       of that moment has the target it was showing. */
    CHECK_STR(state_value(cstate, "calibration"), "ended:shutdown");
    CHECK_INT(atoi(state_value(cstate, "calibration_targets")), 7);
    SDL_Surface *target = load(temp_path("cshot-calibration.bmp"));
    CHECK_PIXEL(target, 729, 48, 235, 160, 40);    /* target 2's cross at (719.1, 47.9), orange */
    CHECK_PIXEL(target, 719, 60, 235, 160, 40);
    CHECK_PIXEL(target, 220, 180, 24, 28, 36);     /* no buttons while calibrating */
    SDL_FreeSurface(target);
    end();
    remove_tmpdir();
    fprintf(stderr, "test_kiosk: all passed\n");
    return 0;
}
