/* An SDL2 kiosk in C on libtouchd-client: the same two screens as examples/kiosk's pygame
 * kiosk — a menu (Coffee, Tea, Juice, List →) and a list of 30 rows in a scroll view with a
 * ← Back button — with no hit-testing of its own. It attaches one full-screen window to
 * touchd's live scene, switches screens with `update` requests (hides one container view,
 * shows the other) and draws what touchd publishes: pressed buttons (touchDown until
 * touchUpInside, touchUpOutside or touchCancel), the selection (primaryActionTriggered), the
 * list at the offset of touchd's scroll messages, a dot under every finger. No text (that
 * would take SDL_ttf): buttons are coloured boxes.
 *
 * It can also calibrate a touchscreen on the glass (docs/protocol.md, "Calibration from the
 * glass"): with --calibrate DEVICE it asks touchd for a calibration at start, and the C key does
 * again (Escape cancels it). Meanwhile it draws each target touchd asks for — a cross in a ring,
 * orange when a target is asked again — and, at the end, prints the residual and the config
 * entry to save.
 *
 *   kiosk [--socket PATH] [--headless] [--screenshots PREFIX] [--state FILE] [--exit-on-bye]
 *         [--calibrate DEVICE]
 *
 * --headless draws into a memory surface (no window, no video driver needed); --screenshots
 * saves PREFIX-final.bmp at exit, PREFIX-N.bmp after the Nth selection is drawn and
 * PREFIX-calibration.bmp as a calibration ends (its last target still drawn); --state
 * writes key=value lines at exit (screen, selections, offset at each selection, scroll
 * messages, the calibration's end and how many targets it drew). Build: make -C examples/sdl-kiosk (needs libsdl2-dev and libtouchd-client).
 */
#include <SDL.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <touchd/client.h>

#define ROWS 30
#define ROW_HEIGHT 60
#define MAX_FINGERS 16
#define MAX_SELECTIONS 64

typedef struct { Uint8 r, g, b; } colour;
static const colour BACKGROUND = {24, 28, 36}, HEADER = {36, 42, 56}, BUTTON = {62, 74, 98},
                    PRESSED = {235, 160, 40}, SELECTED = {40, 170, 90}, FINGER = {220, 60, 60},
                    TEXT = {240, 240, 240};

static const char *const MENU[] = {"coffee", "tea", "juice", "to-list"};
static const int GRID[4][2] = {{60, 100}, {420, 100}, {60, 300}, {420, 300}};

typedef struct {
    touchd_client *client;
    double sx, sy;                   /* the daemon's screen over 800x480 */
    int width, height;
    int list_screen;                 /* 0: menu, 1: list */
    char pressed[40][16];            /* control ids between touchDown and its end */
    int npressed;
    char selected[16];
    char selections[MAX_SELECTIONS][16];
    double selection_offsets[MAX_SELECTIONS];
    int nselections;
    double offset_y;
    int scrolls;
    struct { long id; double x, y; } fingers[MAX_FINGERS];
    int nfingers;
    int running, exit_on_bye;
    long pending_update;             /* the line of the last screen switch, until its reply */
    const char *calibrate_device;    /* --calibrate DEVICE */
    long calibrate_line;             /* the calibrate request's line, until its reply */
    int calibrating, calibration_retry, calibration_targets;
    double target_x, target_y;       /* the target to draw, in the output's points */
    char calibration_end[64];        /* "calibrated", "ended:REASON", "refused" (--state) */
} kiosk;

static SDL_Rect rect(const kiosk *k, double x, double y, double w, double h) {
    return (SDL_Rect){(int)(x * k->sx + 0.5), (int)(y * k->sy + 0.5), (int)(w * k->sx + 0.5), (int)(h * k->sy + 0.5)};
}

/* The kiosk's window as an attach request, scaled to the daemon's screen (as kiosk.py's layout). */
static char *layout(const kiosk *k) {
    static char json[16384];
    size_t n = 0;
#define ADD(...) n += (size_t)snprintf(json + n, sizeof json - n, __VA_ARGS__)
    ADD("{\"attach\":{\"id\":\"kiosk\",\"frame\":[0,0,%d,%d],\"level\":0,"
        "\"view\":{\"id\":\"kiosk-root\",\"frame\":[0,0,%d,%d],\"touches\":\"handle\",\"subviews\":["
        "{\"id\":\"menu\",\"frame\":[0,0,%d,%d],\"subviews\":[",
        k->width, k->height, k->width, k->height, k->width, k->height);
    for (int i = 0; i < 4; i++)
        ADD("%s{\"id\":\"%s\",\"frame\":[%.3f,%.3f,%.3f,%.3f],\"control\":\"button\"}", i ? "," : "", MENU[i],
            GRID[i][0] * k->sx, GRID[i][1] * k->sy, 320 * k->sx, 160 * k->sy);
    ADD("]},{\"id\":\"list-screen\",\"frame\":[0,0,%d,%d],\"hidden\":true,\"subviews\":["
        "{\"id\":\"back\",\"frame\":[%.3f,%.3f,%.3f,%.3f],\"control\":\"button\"},"
        "{\"id\":\"list\",\"frame\":[0,%.3f,%d,%.3f],\"scroll\":{\"contentSize\":[%d,%.3f]},\"subviews\":[",
        k->width, k->height, 20 * k->sx, 10 * k->sy, 160 * k->sx, 60 * k->sy, 80 * k->sy, k->width, 400 * k->sy,
        k->width, ROWS * ROW_HEIGHT * k->sy);
    for (int i = 0; i < ROWS; i++)
        ADD("%s{\"id\":\"row-%d\",\"frame\":[%.3f,%.3f,%.3f,%.3f],\"control\":\"button\"}", i ? "," : "", i + 1,
            20 * k->sx, (i * ROW_HEIGHT + 4) * k->sy, 760 * k->sx, (ROW_HEIGHT - 8) * k->sy);
    ADD("]}]}]}}}");
#undef ADD
    return json;
}

static void show(kiosk *k, int list) {
    char json[512];
    snprintf(json, sizeof json,
             "{\"update\":{\"window\":\"kiosk\",\"changes\":[{\"view\":\"menu\",\"set\":{\"hidden\":%s}},"
             "{\"view\":\"list-screen\",\"set\":{\"hidden\":%s}}]}}",
             list ? "true" : "false", list ? "false" : "true");
    k->pending_update = touchd_client_request(k->client, json);
    if (k->pending_update < 0) fprintf(stderr, "kiosk: %s\n", touchd_client_error(k->client));
    k->list_screen = list;
}

static int is_pressed(const kiosk *k, const char *id) {
    for (int i = 0; i < k->npressed; i++)
        if (strcmp(k->pressed[i], id) == 0) return 1;
    return 0;
}

static void set_pressed(kiosk *k, const char *id, int on) {
    for (int i = 0; i < k->npressed; i++)
        if (strcmp(k->pressed[i], id) == 0) {
            if (!on) memmove(k->pressed[i], k->pressed[i + 1], (size_t)(--k->npressed - i) * sizeof k->pressed[0]);
            return;
        }
    if (on && k->npressed < 40) snprintf(k->pressed[k->npressed++], sizeof k->pressed[0], "%s", id);
}

static void finger(kiosk *k, const touchd_touch *t) {
    int at = -1;
    for (int i = 0; i < k->nfingers; i++)
        if (k->fingers[i].id == t->id) at = i;
    int over = strcmp(t->phase, "ended") == 0 || strcmp(t->phase, "cancelled") == 0;
    if (over) {
        if (at >= 0) k->fingers[at] = k->fingers[--k->nfingers];
        return;
    }
    if (at < 0) {
        if (k->nfingers == MAX_FINGERS) return;
        at = k->nfingers++;
    }
    k->fingers[at].id = t->id;
    k->fingers[at].x = t->x;
    k->fingers[at].y = t->y;
}

static void start_calibration(kiosk *k) {
    if (!k->calibrate_device || k->calibrating) return;
    k->calibrate_line = touchd_client_calibrate(k->client, k->calibrate_device, NULL, 0);
    if (k->calibrate_line < 0) fprintf(stderr, "kiosk: %s\n", touchd_client_error(k->client));
}

/* A calibration's message (or the refusal of its request); 1 when it was one. */
static int calibration(kiosk *k, const touchd_message *m) {
    if (m->line && m->line == k->calibrate_line && strcmp(m->type, "error") == 0) {
        fprintf(stderr, "kiosk: touchd refused the calibration: %s\n", m->error);
        snprintf(k->calibration_end, sizeof k->calibration_end, "refused");
        k->calibrate_line = 0;
        return 1;
    }
    if (strcmp(m->type, "calibration") == 0) {
        k->calibrating = 1;
        k->calibration_targets++;
        k->calibration_retry = m->retry != NULL;
        k->target_x = m->target_x;
        k->target_y = m->target_y;
        if (m->retry) printf("kiosk: calibration: %s\n", m->retry_message ? m->retry_message : m->retry);
        printf("kiosk: calibration target %ld of %ld at %.1f, %.1f\n", m->target_index + 1, m->target_count, m->target_x, m->target_y);
    } else if (strcmp(m->type, "calibrated") == 0) {
        k->calibrating = 0;
        snprintf(k->calibration_end, sizeof k->calibration_end, "calibrated");
        const char *entry = strstr(m->json, "\"entry\":");
        printf("kiosk: calibrated %s: residual rms %.2f, max %.2f points; to keep it, in the config's devices: %.*s\n",
               m->device, m->rms, m->max_error, entry ? (int)strlen(entry + 8) - 1 : 0, entry ? entry + 8 : "");
    } else if (strcmp(m->type, "calibrationEnded") == 0) {
        k->calibrating = 0;
        snprintf(k->calibration_end, sizeof k->calibration_end, "ended:%s", m->reason ? m->reason : "");
        printf("kiosk: calibration of %s ended: %s\n", m->device, m->reason ? m->reason : "");
    } else {
        return 0;
    }
    fflush(stdout);
    return 1;
}

/* One message from touchd; 1 when a selection was made (for --screenshots). */
static int handle(kiosk *k, const touchd_message *m) {
    if (calibration(k, m)) return 0;
    if (strcmp(m->type, "frame") == 0 || strcmp(m->type, "closed") == 0) {
        for (size_t i = 0; i < m->touch_count; i++) finger(k, &m->touches[i]);
        if (strcmp(m->type, "closed") == 0) {
            k->npressed = 0;
            if (k->exit_on_bye) k->running = 0;
        }
    } else if (strcmp(m->type, "scroll") == 0 && strcmp(m->view, "list") == 0) {
        k->offset_y = m->offset_y;
        k->scrolls++;
    } else if (strcmp(m->type, "error") == 0) {
        fprintf(stderr, "kiosk: touchd: %s (line %ld)\n", m->error ? m->error : m->json, m->line);
    } else if (strcmp(m->type, "control") == 0) {
        const char *id = m->control, *ev = m->event;
        if (strcmp(ev, "touchDown") == 0) set_pressed(k, id, 1);
        else if (strcmp(ev, "touchUpInside") == 0 || strcmp(ev, "touchUpOutside") == 0 || strcmp(ev, "touchCancel") == 0)
            set_pressed(k, id, 0);
        else if (strcmp(ev, "primaryActionTriggered") == 0) {
            if (strcmp(id, "to-list") == 0) show(k, 1);
            else if (strcmp(id, "back") == 0) show(k, 0);
            else {
                snprintf(k->selected, sizeof k->selected, "%s", id);
                if (k->nselections < MAX_SELECTIONS) {
                    snprintf(k->selections[k->nselections], sizeof k->selections[0], "%s", id);
                    k->selection_offsets[k->nselections++] = k->offset_y;
                }
                printf("kiosk: selected %s\n", id);
                fflush(stdout);
                return 1;
            }
        }
    }
    return 0;
}

static void fill(SDL_Renderer *r, SDL_Rect box, colour c) {
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
    SDL_RenderFillRect(r, &box);
}

static void button(const kiosk *k, SDL_Renderer *r, const char *id, SDL_Rect box) {
    colour c = is_pressed(k, id) ? PRESSED : strcmp(k->selected, id) == 0 ? SELECTED : BUTTON;
    fill(r, box, c);
}

/* A calibration target: a cross in a ring at (x, y) (the output's points are the screen's). */
static void draw_target(const kiosk *k, SDL_Renderer *r) {
    fill(r, (SDL_Rect){0, 0, k->width, k->height}, BACKGROUND);
    colour c = k->calibration_retry ? PRESSED : TEXT;
    int x = (int)(k->target_x + 0.5), y = (int)(k->target_y + 0.5);
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
    SDL_RenderDrawLine(r, x - 24, y, x + 24, y);
    SDL_RenderDrawLine(r, x, y - 24, x, y + 24);
    for (int a = 0; a < 360; a += 3) {
        double t = a * 3.14159265358979 / 180;
        SDL_RenderDrawPoint(r, x + (int)(14 * SDL_cos(t)), y + (int)(14 * SDL_sin(t)));
    }
}

static void draw(const kiosk *k, SDL_Renderer *r) {
    if (k->calibrating) {
        draw_target(k, r);
        return;
    }
    fill(r, (SDL_Rect){0, 0, k->width, k->height}, BACKGROUND);
    SDL_Rect header = rect(k, 0, 0, 800, 80);
    fill(r, header, HEADER);
    if (!k->list_screen) {
        for (int i = 0; i < 4; i++) button(k, r, MENU[i], rect(k, GRID[i][0], GRID[i][1], 320, 160));
    } else {
        button(k, r, "back", rect(k, 20, 10, 160, 60));
        SDL_Rect area = rect(k, 0, 80, 800, 400);
        SDL_RenderSetClipRect(r, &area);
        for (int i = 0; i < ROWS; i++) {
            char id[16];
            snprintf(id, sizeof id, "row-%d", i + 1);
            SDL_Rect row = rect(k, 20, 80 + i * ROW_HEIGHT + 4 - k->offset_y / k->sy, 760, ROW_HEIGHT - 8);
            button(k, r, id, row);
        }
        double content = ROWS * ROW_HEIGHT * k->sy;
        SDL_Rect bar = {area.x + area.w - 6, area.y + (int)(area.h * k->offset_y / content), 4,
                        (int)(area.h * (double)area.h / content)};
        fill(r, bar, TEXT);
        SDL_RenderSetClipRect(r, NULL);
    }
    for (int i = 0; i < k->nfingers; i++) {            /* a dot: a filled square-ish disc */
        int cx = (int)k->fingers[i].x, cy = (int)k->fingers[i].y;
        SDL_SetRenderDrawColor(r, FINGER.r, FINGER.g, FINGER.b, 255);
        for (int dy = -18; dy <= 18; dy++) {
            int dx = 0;
            while ((dx + 1) * (dx + 1) + dy * dy <= 18 * 18) dx++;
            SDL_RenderDrawLine(r, cx - dx, cy + dy, cx + dx, cy + dy);
        }
    }
}

static void save(SDL_Surface *s, const char *prefix, const char *what) {
    char path[1024];
    snprintf(path, sizeof path, "%s-%s.bmp", prefix, what);
    if (SDL_SaveBMP(s, path) != 0) fprintf(stderr, "kiosk: %s: %s\n", path, SDL_GetError());
}

int main(int argc, char **argv) {
    const char *socket_path = NULL, *shots = NULL, *state = NULL, *calibrate = NULL;
    int headless = 0, exit_on_bye = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) socket_path = argv[++i];
        else if (strcmp(argv[i], "--screenshots") == 0 && i + 1 < argc) shots = argv[++i];
        else if (strcmp(argv[i], "--state") == 0 && i + 1 < argc) state = argv[++i];
        else if (strcmp(argv[i], "--headless") == 0) headless = 1;
        else if (strcmp(argv[i], "--exit-on-bye") == 0) exit_on_bye = 1;
        else if (strcmp(argv[i], "--calibrate") == 0 && i + 1 < argc) calibrate = argv[++i];
        else {
            fprintf(stderr, "usage: kiosk [--socket PATH] [--headless] [--screenshots PREFIX] [--state FILE] [--exit-on-bye]"
                            " [--calibrate DEVICE]\n");
            return 2;
        }
    }
    kiosk k = {.running = 1, .exit_on_bye = exit_on_bye, .width = 800, .height = 480, .sx = 1, .sy = 1,
               .calibrate_device = calibrate};
    k.client = touchd_client_connect(socket_path);
    if (!k.client) {
        fprintf(stderr, "kiosk: %s\n", touchd_client_error(NULL));
        return 1;
    }
    /* hello first: the screen's size, then the window scaled to it. */
    const touchd_message *m = touchd_client_next(k.client, 5000);
    if (!m || strcmp(m->type, "hello") != 0) {
        fprintf(stderr, "kiosk: no hello from touchd: %s\n", m ? m->type : touchd_client_error(k.client));
        return 1;
    }
    double w = 800, h = 480;
    const char *screen = strstr(m->json, "\"screen\":");
    if (screen && sscanf(screen, "\"screen\":{\"width\":%lf,\"height\":%lf", &w, &h) == 2 && w >= 1 && h >= 1) {
        k.width = (int)w, k.height = (int)h, k.sx = w / 800, k.sy = h / 480;
    }
    /* --calibrate: first (touchd answers with the first target), so that a replay waiting for
       the kiosk's first request gives every tap to the calibration. */
    start_calibration(&k);
    long attach = touchd_client_request(k.client, layout(&k));
    if (attach < 0) {
        fprintf(stderr, "kiosk: %s\n", touchd_client_error(k.client));
        return 1;
    }

    if (SDL_Init(headless ? 0 : SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "kiosk: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    SDL_Window *window = NULL;
    if (!headless) {
        window = SDL_CreateWindow("touchd kiosk", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, k.width, k.height,
                                  getenv("KIOSK_FULLSCREEN") ? SDL_WINDOW_FULLSCREEN : 0);
        if (!window) {
            fprintf(stderr, "kiosk: SDL_CreateWindow: %s\n", SDL_GetError());
            return 1;
        }
    }
    /* Drawn in memory by SDL's software renderer, then copied to the window if there is one:
       the same pixels headless or not, and screenshots are that surface. */
    SDL_Surface *canvas = SDL_CreateRGBSurfaceWithFormat(0, k.width, k.height, 32, SDL_PIXELFORMAT_XRGB8888);
    SDL_Renderer *r = canvas ? SDL_CreateSoftwareRenderer(canvas) : NULL;
    if (!r) {
        fprintf(stderr, "kiosk: software renderer: %s\n", SDL_GetError());
        return 1;
    }
    int shot = 0;
    while (k.running) {
        SDL_Event e;
        while (!headless && SDL_PollEvent(&e)) {
            if (e.type == SDL_QUIT) k.running = 0;
            if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_c) start_calibration(&k);
            if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE && k.calibrating &&
                touchd_client_cancel_calibration(k.client, k.calibrate_device) < 0)
                fprintf(stderr, "kiosk: %s\n", touchd_client_error(k.client));
        }
        int selected = 0;
        /* Wait up to a frame (16 ms) for touchd, then take everything that has come. */
        for (int timeout = 16; (m = touchd_client_next(k.client, timeout)); timeout = 0) {
            if (m->line == attach && strcmp(m->type, "attached") != 0) {
                fprintf(stderr, "kiosk: touchd refused the kiosk's window: %s\n", m->json);
                return 1;
            }
            /* A calibration's end: first the last target as it was on the glass. */
            if (shots && k.calibrating && (strcmp(m->type, "calibrated") == 0 || strcmp(m->type, "calibrationEnded") == 0)) {
                draw(&k, r);
                SDL_RenderPresent(r);
                save(canvas, shots, "calibration");
            }
            selected |= handle(&k, m);
            if (!k.running) break;
        }
        if (!m && errno == ENOTCONN) k.running = 0;
        else if (!m && errno != EAGAIN) fprintf(stderr, "kiosk: %s\n", touchd_client_error(k.client));
        draw(&k, r);
        SDL_RenderPresent(r);
        if (selected && shots) {
            char n[16];
            snprintf(n, sizeof n, "%d", ++shot);
            save(canvas, shots, n);
        }
        if (window) {
            SDL_Surface *ws = SDL_GetWindowSurface(window);
            if (ws) {
                SDL_BlitSurface(canvas, NULL, ws, NULL);
                SDL_UpdateWindowSurface(window);
            }
        }
    }
    draw(&k, r);
    SDL_RenderPresent(r);
    if (shots) save(canvas, shots, "final");
    if (state) {
        FILE *f = fopen(state, "w");
        if (!f) {
            fprintf(stderr, "kiosk: %s: %s\n", state, strerror(errno));
            return 1;
        }
        fprintf(f, "screen=%s\nselected=%s\nscrolls=%d\noffset=%.3f\nselections=", k.list_screen ? "list" : "menu",
                k.selected, k.scrolls, k.offset_y);
        for (int i = 0; i < k.nselections; i++) fprintf(f, "%s%s", i ? " " : "", k.selections[i]);
        fprintf(f, "\nselection_offsets=");
        for (int i = 0; i < k.nselections; i++) fprintf(f, "%s%.3f", i ? " " : "", k.selection_offsets[i]);
        fprintf(f, "\nfingers_left=%d\n", k.nfingers);
        fprintf(f, "calibration=%s\ncalibration_targets=%d\n", k.calibration_end[0] ? k.calibration_end : k.calibrating ? "running" : "none",
                k.calibration_targets);
        fclose(f);
    }
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(canvas);
    if (window) SDL_DestroyWindow(window);
    SDL_Quit();
    touchd_client_close(k.client);
    return 0;
}
