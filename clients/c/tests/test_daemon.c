/* The C client against the real daemon (`touchd run --replay`): a window attached, its touches,
 * control events and scroll offsets from a scripted capture, replies matched to their request
 * lines, every touch cancelled when the daemon goes away, and every message of the daemon's
 * replays of the repository's fixtures parsed.
 *
 *   TOUCHD_BINARY=path/to/touchd TOUCHD_TOP=repository test_daemon
 */
#include "harness.h"

/* ---- the kiosk: examples/kiosk's layout at 800x480, driven like examples/kiosk/kiosk.py ---- */

static char *kiosk_window(void) {
    static char json[16384];
    size_t n = (size_t)snprintf(json, sizeof json,
        "{\"attach\":{\"id\":\"kiosk\",\"frame\":[0,0,800,480],\"level\":0,"
        "\"view\":{\"id\":\"kiosk-root\",\"frame\":[0,0,800,480],\"touches\":\"handle\",\"subviews\":["
        "{\"id\":\"menu\",\"frame\":[0,0,800,480],\"subviews\":["
        "{\"id\":\"coffee\",\"frame\":[60,100,320,160],\"control\":\"button\"},"
        "{\"id\":\"tea\",\"frame\":[420,100,320,160],\"control\":\"button\"},"
        "{\"id\":\"juice\",\"frame\":[60,300,320,160],\"control\":\"button\"},"
        "{\"id\":\"to-list\",\"frame\":[420,300,320,160],\"control\":\"button\"}]},"
        "{\"id\":\"list-screen\",\"frame\":[0,0,800,480],\"hidden\":true,\"subviews\":["
        "{\"id\":\"back\",\"frame\":[20,10,160,60],\"control\":\"button\"},"
        "{\"id\":\"list\",\"frame\":[0,80,800,400],\"scroll\":{\"contentSize\":[800,1800]},\"subviews\":[");
    for (int i = 0; i < 30; i++)
        n += (size_t)snprintf(json + n, sizeof json - n, "%s{\"id\":\"row-%d\",\"frame\":[20,%d,760,52],\"control\":\"button\"}",
                              i ? "," : "", i + 1, i * 60 + 4);
    snprintf(json + n, sizeof json - n, "]}]}]}}}");
    return json;
}

static const char *show(const char *screen) {
    static char json[512];
    int list = strcmp(screen, "list") == 0;
    snprintf(json, sizeof json,
             "{\"update\":{\"window\":\"kiosk\",\"changes\":[{\"view\":\"menu\",\"set\":{\"hidden\":%s}},"
             "{\"view\":\"list-screen\",\"set\":{\"hidden\":%s}}]}}",
             list ? "true" : "false", list ? "false" : "true");
    return json;
}

static void test_kiosk(void) {
    begin("kiosk: attach, taps, updates, scroll, bye", 40);
    const char *sock = temp_path("kiosk.sock");
    const char *args[] = {"--config", repo_path("examples/kiosk/touchd.json"),
                          "--replay", repo_path("examples/kiosk/kiosk-taps.events"),
                          "--device-info", repo_path("Tests/Fixtures/virtual-800x480.desc"),
                          "--speed", "1", "--wait-clients", "1", "--exit-at-end", NULL};
    pid_t pid = start_daemon(sock, args);
    touchd_client *c = touchd_client_connect(sock);
    if (!c) FAIL("connect: %s", touchd_client_error(NULL));
    CHECK(touchd_client_fd(c) >= 0);

    const touchd_message *m = touchd_client_next(c, 5000);
    if (!m) FAIL("no hello: %s", touchd_client_error(c));
    CHECK_STR(m->type, "hello");
    CHECK_INT(m->line, 0);
    CHECK_CONTAINS(m->json, "\"protocol\":1");

    long attach = touchd_client_request(c, kiosk_window());
    CHECK_INT(attach, 1);

    char selections[256] = "", events[2048] = "";
    long update_lines[4] = {0}, updates = 0, replies_seen = 0;
    int attached = 0, frames = 0, began = 0, bye = 0, scrolls = 0;
    double offset_y = -1, offset_at_row_tap = -1;
    const char *screen = "menu";
    for (;;) {
        m = touchd_client_next(c, 10000);
        if (!m) FAIL("next: %s (errno %d)", touchd_client_error(c), errno);
        if (strcmp(m->type, "closed") == 0) break;
        if (strcmp(m->type, "attached") == 0) {
            CHECK_INT(m->line, attach);
            CHECK_STR(m->window, "kiosk");
            CHECK_CONTAINS(m->json, "\"version\":1");
            attached = 1;
        } else if (strcmp(m->type, "updated") == 0) {
            CHECK(replies_seen < updates);
            CHECK_INT(m->line, update_lines[replies_seen]);
            replies_seen++;
            char version[32];
            snprintf(version, sizeof version, "\"version\":%ld", replies_seen + 1);
            CHECK_CONTAINS(m->json, version);
        } else if (strcmp(m->type, "error") == 0) {
            FAIL("error from the daemon: %s", m->json);
        } else if (strcmp(m->type, "frame") == 0) {
            frames++;
            CHECK(m->touch_count >= 1);
            const touchd_touch *t = &m->touches[0];
            if (strcmp(t->phase, "began") == 0 && began++ == 0) {
                /* The first tap: Coffee at (220, 180); the button's frame is (60, 100, 320, 160). */
                CHECK_INT(t->id, 1);
                CHECK_STR(t->window, "kiosk");
                CHECK_STR(t->view, "coffee");
                CHECK_NEAR(t->x, 220);
                CHECK_NEAR(t->y, 180);
                CHECK_NEAR(t->view_x, 160);
                CHECK_NEAR(t->view_y, 80);
                CHECK_INT(t->tap_count, 1);
                CHECK(t->reason == NULL);
            }
        } else if (strcmp(m->type, "scroll") == 0) {
            CHECK_STR(m->view, "list");
            CHECK_NEAR(m->offset_x, 0);
            offset_y = m->offset_y;
            scrolls++;
        } else if (strcmp(m->type, "control") == 0) {
            size_t n = strlen(events);
            snprintf(events + n, sizeof events - n, "%s%s:%s", n ? " " : "", m->control, m->event);
            if (strcmp(m->event, "primaryActionTriggered") == 0) {
                if (strcmp(m->control, "to-list") == 0 || strcmp(m->control, "back") == 0) {
                    screen = strcmp(m->control, "back") == 0 ? "menu" : "list";
                    CHECK(updates < 4);
                    update_lines[updates] = touchd_client_request(c, show(screen));
                    if (update_lines[updates] < 0) FAIL("request: %s", touchd_client_error(c));
                    CHECK_INT(update_lines[updates], attach + 1 + updates);
                    updates++;
                } else {
                    if (strncmp(m->control, "row-", 4) == 0) offset_at_row_tap = offset_y;
                    size_t k = strlen(selections);
                    snprintf(selections + k, sizeof selections - k, "%s%s", k ? " " : "", m->control);
                }
            }
        } else if (strcmp(m->type, "bye") == 0) {
            CHECK_STR(m->reason, "shutdown");
            bye = 1;
        }
    }
    /* The capture: Coffee, List →, a 300-point drag up the list, (400, 300) = Item 14, ← Back, Tea. */
    CHECK(attached);
    CHECK(bye);
    CHECK_STR(selections, "coffee row-14 tea");
    CHECK_STR(events, "coffee:touchDown coffee:touchUpInside coffee:primaryActionTriggered "
                      "to-list:touchDown to-list:touchUpInside to-list:primaryActionTriggered "
                      "row-14:touchDown row-14:touchUpInside row-14:primaryActionTriggered "
                      "back:touchDown back:touchUpInside back:primaryActionTriggered "
                      "tea:touchDown tea:touchUpInside tea:primaryActionTriggered");
    CHECK_STR(screen, "menu");
    CHECK_INT(updates, 2);
    CHECK_INT(replies_seen, 2);
    CHECK_NEAR(offset_at_row_tap, 594.419);
    CHECK_NEAR(offset_y, 594.419);
    CHECK(scrolls > 10);
    CHECK_INT(began, 6);
    CHECK(frames >= 6 * 2);
    /* The closed message: the daemon lifted every finger, so nothing is left to cancel. */
    CHECK_STR(m->reason, "bye: shutdown");
    CHECK_INT(m->touch_count, 0);
    CHECK_STR(m->json, "{\"type\":\"closed\",\"reason\":\"bye: shutdown\",\"touches\":[]}");
    CHECK(touchd_client_next(c, 0) == NULL);
    CHECK_INT(errno, ENOTCONN);
    CHECK_INT(touchd_client_fd(c), -1);
    CHECK(touchd_client_request(c, "{\"ping\":1}") == -1);
    CHECK_INT(errno, ENOTCONN);
    touchd_client_close(c);
    CHECK_INT(wait_daemon(pid), 0);
    end();
}

/* ---- touches still down when the daemon goes away ---------------------------------------- */

/* Two fingers held 3 s (Tests/Fixtures/daemon/long-two-fingers.events): touch 1 from (100, 240)
   moving right 5 points every 100 ms, touch 2 from (600, 100) moving down. The client attaches
   a window at (50, 50) under touch 1; touch 2 lands on the config's view "gone". */
static void held_fingers(int sig) {
    int killed = sig == SIGKILL;
    begin(killed ? "daemon killed: touches cancelled as disconnected" : "daemon stopped: shutdown, bye, closed", 30);
    const char *sock = temp_path(killed ? "killed.sock" : "stopped.sock");
    const char *args[] = {"--config", repo_path("Tests/Fixtures/daemon/halves.json"),
                          "--replay", repo_path("Tests/Fixtures/daemon/long-two-fingers.events"),
                          "--speed", "1", "--wait-clients", "1", NULL};
    pid_t pid = start_daemon(sock, args);
    touchd_client *c = touchd_client_connect(sock);
    if (!c) FAIL("connect: %s", touchd_client_error(NULL));

    /* Requests whose replies carry no "line" (subscribe's snapshot, pong, stats) get the line
       of their request; one the daemon refuses is an error with its line. */
    long attach = touchd_client_request(c,
        "{\"attach\":{\"id\":\"w\",\"frame\":[50,50,300,300],\n"
        "  \"view\":{\"id\":\"wv\",\"frame\":[0,0,300,300],\"touches\":\"handle\"}}}");
    long sub = touchd_client_request(c, "{\"subscribe\":{\"types\":[\"frame\",\"control\"]}}");
    long ping = touchd_client_request(c, "{\"ping\":7}");
    long bad = touchd_client_request(c, "{\"nope\":1}");
    long stats = touchd_client_request(c, "{\"stats\":true}");
    CHECK_INT(attach, 1);
    CHECK_INT(sub, 2);
    CHECK_INT(ping, 3);
    CHECK_INT(bad, 4);
    CHECK_INT(stats, 5);
    const touchd_message *m;
    const char *expect[] = {"hello", "snapshot", "attached", "snapshot", "pong", "error", "stats"};
    long lines[] = {0, 0, attach, sub, ping, bad, stats};
    double last_x = 0;
    /* The replay starts once the client has spoken, so its first frames may come between the
       replies (a loaded machine handles the requests over several turns): the replies in
       their order, the frames in theirs. */
    for (int i = 0, frames = 0; i < 7 || frames < 6;) {
        m = touchd_client_next(c, 5000);
        if (!m) FAIL("message %d, frame %d: %s", i, frames, touchd_client_error(c));
        if (strcmp(m->type, "device") == 0) continue;    /* the replay's device */
        if (strcmp(m->type, "frame") == 0) {
            if (frames == 6) continue;
            CHECK_INT(m->touch_count, 2);
            CHECK_INT(m->touches[0].id, 1);
            CHECK_STR(m->touches[0].window, "w");
            CHECK_STR(m->touches[0].view, "wv");
            CHECK_NEAR(m->touches[0].x, 100 + 5 * frames);
            CHECK_NEAR(m->touches[0].window_x, 50 + 5 * frames);
            CHECK_NEAR(m->touches[0].y, 240);
            CHECK_NEAR(m->touches[0].window_y, 190);
            CHECK_STR(m->touches[1].window, "main");
            CHECK_STR(m->touches[1].view, "gone");
            CHECK_NEAR(m->touches[1].view_x, 200);
            last_x = m->touches[0].x;
            frames++;
            continue;
        }
        if (i == 7) continue;
        CHECK_STR(m->type, expect[i]);
        CHECK_INT(m->line, lines[i]);
        if (strcmp(m->type, "error") == 0) CHECK_CONTAINS(m->error, "nope");
        i++;
    }
    CHECK_NEAR(last_x, 125);
    kill(pid, sig);
    int shutdown_frame = 0, bye = 0;
    for (;;) {
        m = touchd_client_next(c, 5000);
        if (!m) FAIL("next: %s", touchd_client_error(c));
        if (strcmp(m->type, "closed") == 0) break;
        if (strcmp(m->type, "bye") == 0) bye = 1;
        if (strcmp(m->type, "frame") == 0 && strcmp(m->touches[0].phase, "cancelled") == 0) {
            CHECK_INT(m->touch_count, 2);
            CHECK_STR(m->touches[0].reason, "shutdown");
            CHECK_STR(m->touches[1].reason, "shutdown");
            CHECK_STR(m->touches[1].phase, "cancelled");
            shutdown_frame = 1;
        }
    }
    if (killed) {
        /* No word from the daemon: every touch this client knew of is cancelled here. */
        CHECK(!bye && !shutdown_frame);
        CHECK_STR(m->reason, "the daemon closed the connection");
        CHECK_INT(m->touch_count, 2);
        const touchd_touch *t = m->touches;
        if (t[0].id != 1) t = m->touches + 1;      /* in no particular order */
        CHECK_INT(t[0].id, 1);
        CHECK_STR(t[0].phase, "cancelled");
        CHECK_STR(t[0].reason, "disconnected");
        CHECK_STR(t[0].window, "w");
        CHECK_STR(t[0].view, "wv");
        CHECK(t[0].x >= last_x);
        CHECK_NEAR(t[0].x - t[0].window_x, 50);
        CHECK_NEAR(t[0].y, 240);
        CHECK_INT(t[0].tap_count, 1);
        const touchd_touch *u = t == m->touches ? m->touches + 1 : m->touches;
        CHECK_INT(u->id, 2);
        CHECK_STR(u->phase, "cancelled");
        CHECK_STR(u->reason, "disconnected");
        CHECK_STR(u->window, "main");
        CHECK_STR(u->view, "gone");
        CHECK_NEAR(u->x, 600);
        CHECK_CONTAINS(m->json, "\"reason\":\"disconnected\"");
        CHECK_INT(wait_daemon(pid), 128 + SIGKILL);
    } else {
        /* SIGTERM: the daemon cancels them itself (reason shutdown) and says bye. */
        CHECK(bye && shutdown_frame);
        CHECK_STR(m->reason, "bye: shutdown");
        CHECK_INT(m->touch_count, 0);
        CHECK_INT(wait_daemon(pid), 0);
    }
    CHECK(touchd_client_next(c, 100) == NULL);
    CHECK_INT(errno, ENOTCONN);
    CHECK_CONTAINS(touchd_client_error(c), "closed");
    touchd_client_close(c);
    end();
}

/* ---- every message of the daemon's replays parses ---------------------------------------- */

/* Feeds `touchd replay --trace` of a fixture, line by line, to a client through a fake daemon;
   returns the number of messages, and counts each type of interest. */
static int replay_through(const char *config, const char *capture, const char *scene, int *types) {
    char cmd[4096];
    /* The scripted captures have no device description: the virtual panel's. */
    int headerless = strstr(capture, "Fixtures/captures/") == NULL;
    snprintf(cmd, sizeof cmd, "'%s' replay --trace --config '%s'%s%s%s%s%s%s '%s'", touchd_binary(), repo_path(config),
             scene ? " --scene '" : "", scene ? repo_path(scene) : "", scene ? "'" : "",
             headerless ? " --device-info '" : "", headerless ? repo_path("Tests/Fixtures/virtual-800x480.desc") : "",
             headerless ? "'" : "", repo_path(capture));
    FILE *out = popen(cmd, "r");
    if (!out) FAIL("popen %s: %s", cmd, strerror(errno));
    int server;
    touchd_client *c = fake_daemon(&server);
    pid_t writer = fork();
    if (writer == 0) {
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, out)) > 0) send_text(server, buf, n);
        _exit(0);
    }
    close(server);
    int count = 0;
    const touchd_message *m;
    while ((m = touchd_client_next(c, 10000))) {
        if (strcmp(m->type, "closed") == 0) {
            CHECK_INT(m->touch_count, 0);       /* a replay ends every touch */
            break;
        }
        count++;
        const char *kinds[] = {"frame", "control", "gesture", "scroll", "hitTest", "device"};
        for (int k = 0; k < 6; k++)
            if (strcmp(m->type, kinds[k]) == 0) types[k]++;
        if (strcmp(m->type, "frame") == 0)
            for (size_t i = 0; i < m->touch_count; i++) {
                CHECK(m->touches[i].id > 0);
                CHECK(m->touches[i].phase != NULL);
                if (strcmp(m->touches[i].phase, "cancelled") == 0) CHECK(m->touches[i].reason != NULL);
            }
    }
    if (!m) FAIL("%s: %s", capture, touchd_client_error(c));
    touchd_client_close(c);
    waitpid(writer, NULL, 0);
    CHECK_INT(pclose(out), 0);
    return count;
}

static void test_replays_parse(void) {
    begin("every message of the fixtures' replays parses", 120);
    static const char *names[] = {"g1-single-vs-double", "g10-edge-pan", "g11-one-winner", "g2-button-in-tappable-card",
                                  "g3-scroll-cancels-button", "g4-long-press-moves", "g5-pinch-and-rotate",
                                  "g6-delays-touches-began", "g7-button-keeps-its-touch", "g8-flick-decelerates",
                                  "g9-paging"};
    int types[6] = {0}, total = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char config[256], capture[256];
        snprintf(config, sizeof config, "Tests/Fixtures/gestures/%s.json", names[i]);
        snprintf(capture, sizeof capture, "Tests/Fixtures/gestures/%s.events", names[i]);
        total += replay_through(config, capture, NULL, types);
    }
    total += replay_through("Tests/Fixtures/live/live-taps.json", "Tests/Fixtures/live/live-taps.events",
                            "Tests/Fixtures/live/live-taps.scene.ndjson", types);
    total += replay_through("config/example.json", "Tests/Fixtures/captures/atmel-maxtouch_4-finger-drag-down.events",
                            NULL, types);
    fprintf(stderr, "  %d messages: %d frames, %d control, %d gesture, %d scroll, %d hitTest, %d device\n", total,
            types[0], types[1], types[2], types[3], types[4], types[5]);
    for (int k = 0; k < 6; k++) CHECK(types[k] > 0);
    end();
}

int main(void) {
    test_kiosk();
    held_fingers(SIGKILL);
    held_fingers(SIGTERM);
    test_replays_parse();
    remove_tmpdir();
    fprintf(stderr, "test_daemon: all passed\n");
    return 0;
}
