/* The C client against a fake daemon that misbehaves: malformed lines, lines over the limit, a
 * flood without newlines, silence, a connection cut mid-line or mid-touch; and the library's
 * own errors (connect, request). Every case names the errno and the words it expects. */
#include "harness.h"

#include <sys/resource.h>

static const touchd_message *expect_message(touchd_client *c, const char *type) {
    const touchd_message *m = touchd_client_next(c, 2000);
    if (!m) FAIL("expected a %s message: errno %d: %s", type, errno, touchd_client_error(c));
    CHECK_STR(m->type, type);
    return m;
}

static void expect_error(touchd_client *c, int errnum, const char *words) {
    const touchd_message *m = touchd_client_next(c, 2000);
    if (m) FAIL("expected errno %d (%s), got a %s message: %.200s", errnum, words, m->type, m->json);
    if (errno != errnum) FAIL("expected errno %d (%s), got %d: %s", errnum, words, errno, touchd_client_error(c));
    CHECK_CONTAINS(touchd_client_error(c), words);
}

static void test_malformed_lines(void) {
    begin("malformed lines: EBADMSG naming the line, then the next line", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    send_str(s, "not json\n"                                          /* line 1 */
                "[1,2]\n"                                             /* 2 */
                "{\"no\":1}\n"                                        /* 3 */
                "{\"type\":5}\n"                                      /* 4 */
                "{\"type\":\"frame\",\"touches\":[{\"id\":\"x\"}]}\n" /* 5 */
                "{\"type\":\"frame\",\"touches\":[{\"id\":1,\"phase\":\"began\",\"location\":[1]}]}\n" /* 6 */
                "{\"type\":\"control\",\"control\":\"ok\"}\n"         /* 7 */
                "{\"type\":\"pong\"} trailing\n"                      /* 8 */
                "{\"type\":\"pong\",\"s\":\"\xff\xfe\"}\n"            /* 9: not UTF-8 */
                "\n"                                                  /* (empty: skipped, not counted as a message) */
                "{\"type\":\"pong\",\"ping\":1}\n");                  /* 11 */
    send_text(s, "{\"type\":\"p\0ng\"}\n", sizeof "{\"type\":\"p\0ng\"}\n" - 1);                       /* 12: a NUL byte */
    send_str(s, "{\"type\":\"scroll\",\"view\":\"list\",\"offset\":[0,\"a\"]}\n"           /* 13 */
                "{\"type\":\"frame\",\"line\":\"2\",\"touches\":[]}\n"                     /* 14 */
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n" /* 15 */
                "{\"type\":\"scroll\",\"view\":\"list\",\"offset\":[0,12.5],\"seq\":9,\"time\":1.25}\n"); /* 16 */
    expect_error(c, EBADMSG, "line 1 from the daemon is not JSON");
    expect_error(c, EBADMSG, "line 2 from the daemon: a array, not a JSON object");
    expect_error(c, EBADMSG, "line 3 from the daemon: type: missing");
    expect_error(c, EBADMSG, "line 4 from the daemon: type: not a string");
    expect_error(c, EBADMSG, "line 5 (frame): touches[0].id: a string, not an integer");
    expect_error(c, EBADMSG, "line 6 (frame): touches[0].location: not a point [x, y]");
    expect_error(c, EBADMSG, "line 7 (control): event: missing");
    expect_error(c, EBADMSG, "line 8 from the daemon is not JSON: unexpected character (column 17)");
    expect_error(c, EBADMSG, "line 9 from the daemon is not JSON");
    const touchd_message *m = expect_message(c, "pong");
    CHECK_INT(m->line, 0);                          /* no ping was sent: no request to answer */
    CHECK_STR(m->json, "{\"type\":\"pong\",\"ping\":1}");
    expect_error(c, EBADMSG, "line 12 from the daemon: a NUL byte at column 11");
    expect_error(c, EBADMSG, "line 13 (scroll): offset: not a point");
    expect_error(c, EBADMSG, "line 14 (frame): line: a string, not an integer");
    expect_error(c, EBADMSG, "line 15 from the daemon is not JSON: nesting too deep");
    m = expect_message(c, "scroll");
    CHECK_STR(m->view, "list");
    CHECK_NEAR(m->offset_y, 12.5);
    CHECK_INT(m->seq, 9);
    CHECK_NEAR(m->time, 1.25);
    close(s);
    m = expect_message(c, "closed");
    CHECK_INT(m->touch_count, 0);
    touchd_client_close(c);
    end();
}

static void test_long_line(void) {
    begin("a line over the limit: EMSGSIZE, skipped without being kept", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    CHECK_INT(touchd_client_set_max_line(c, 100), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(touchd_client_set_max_line(c, 4096), 0);
    char big[10001];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\n';
    send_text(s, big, sizeof big);                                    /* line 1 */
    send_str(s, "{\"type\":\"hello\"}\n");                            /* 2 */
    big[0] = '{';
    send_text(s, big, 4000);                                          /* 3: 4,500 bytes in two parts */
    send_text(s, big, 500);
    send_str(s, "\nnope\n");                                          /* 4 */
    expect_error(c, EMSGSIZE, "line 1 from the daemon is longer than 4096 bytes");
    expect_message(c, "hello");
    expect_error(c, EMSGSIZE, "line 3 from the daemon is longer than 4096 bytes");
    expect_error(c, EBADMSG, "line 4 from the daemon is not JSON");
    close(s);
    expect_message(c, "closed");
    touchd_client_close(c);
    end();
}

static void test_flood(void) {
    begin("20 MiB without a newline: EMSGSIZE, memory bounded, then the next line", 60);
    int s;
    touchd_client *c = fake_daemon(&s);
    pid_t writer = fork();
    if (writer == 0) {
        static char junk[1 << 20];
        memset(junk, 'x', sizeof junk);
        for (int i = 0; i < 20; i++) send_text(s, junk, sizeof junk);
        send_str(s, "\n{\"type\":\"hello\",\"protocol\":1}\n");
        _exit(0);
    }
    close(s);
    const touchd_message *m;
    int too_long = 0;
    while (!(m = touchd_client_next(c, 5000))) {
        if (errno == EMSGSIZE) {
            CHECK_CONTAINS(touchd_client_error(c), "line 1 from the daemon is longer than 16777216 bytes");
            too_long++;
            continue;
        }
        FAIL("errno %d: %s", errno, touchd_client_error(c));
    }
    CHECK_INT(too_long, 1);
    CHECK_STR(m->type, "hello");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr, "  peak RSS %ld KiB\n", ru.ru_maxrss);
#if !defined(__SANITIZE_ADDRESS__)                  /* AddressSanitizer's shadow and quarantine are more */
    CHECK(ru.ru_maxrss < 24 * 1024 + 16 * 1024);        /* one 16 MiB line at most, plus the process */
#endif
    CHECK_INT(waitpid(writer, NULL, 0), writer);
    expect_message(c, "closed");
    touchd_client_close(c);
    end();
}

static void test_time_bounds(void) {
    begin("timeouts: silence and a flood of junk both return in time", 20);
    int s;
    touchd_client *c = fake_daemon(&s);
    long long t0 = now_ms();
    CHECK(touchd_client_next(c, 150) == NULL);
    CHECK_INT(errno, EAGAIN);
    CHECK_CONTAINS(touchd_client_error(c), "no message within 150 ms");
    long long took = now_ms() - t0;
    CHECK(took >= 140 && took < 1000);
    t0 = now_ms();
    CHECK(touchd_client_next(c, 0) == NULL);
    CHECK_INT(errno, EAGAIN);
    CHECK(now_ms() - t0 < 100);
    pid_t writer = fork();
    if (writer == 0) {                                  /* junk, forever, never a newline */
        static char junk[65536];
        memset(junk, 'y', sizeof junk);
        for (;;)
            if (write(s, junk, sizeof junk) < 0) _exit(0);
    }
    touchd_client_set_max_line(c, 1 << 20);
    int errors = 0;
    for (int i = 0; i < 10; i++) {
        t0 = now_ms();
        const touchd_message *m = touchd_client_next(c, 200);
        took = now_ms() - t0;
        CHECK(m == NULL);
        CHECK(errno == EAGAIN || errno == EMSGSIZE);
        errors += errno == EMSGSIZE;
        if (took > 1000) FAIL("next(200 ms) took %lld ms under a flood", took);
    }
    CHECK_INT(errors, 1);                               /* one line, reported once */
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    close(s);
    touchd_client_close(c);
    end();
}

static void test_cut_mid_touch(void) {
    begin("cut mid-touch and mid-line: the partial line reported, the touches cancelled", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    send_str(s, "{\"type\":\"hello\"}\n"
                "{\"type\":\"snapshot\",\"touches\":[{\"id\":4,\"phase\":\"stationary\",\"window\":\"m\",\"view\":null,"
                "\"location\":[9,9]}]}\n"
                "{\"type\":\"frame\",\"touches\":[{\"id\":4,\"phase\":\"ended\",\"location\":[9,9]},"
                "{\"id\":5,\"phase\":\"began\",\"window\":\"m\",\"view\":\"v\",\"location\":[1,2],"
                "\"locationInView\":[0.5,1.5],\"tapCount\":2}]}\n"
                "{\"type\":\"frame\",\"touches\":[{\"id\":5,\"phase\":\"moved\",\"window\":\"m\",\"view\":\"v\","
                "\"location\":[3,4],\"locationInView\":[2.5,3.5],\"tapCount\":2},"
                "{\"id\":6,\"phase\":\"began\",\"window\":null,\"view\":null,\"location\":[7,8]}]}\n"
                "{\"type\":\"fra");
    close(s);
    expect_message(c, "hello");
    const touchd_message *m = expect_message(c, "snapshot");
    CHECK_INT(m->line, 0);                              /* the snapshot after hello answers nothing */
    CHECK_INT(m->touch_count, 1);
    CHECK(m->touches[0].view == NULL);
    m = expect_message(c, "frame");
    CHECK_INT(m->touch_count, 2);
    CHECK_INT(m->touches[1].tap_count, 2);
    expect_message(c, "frame");
    expect_error(c, EBADMSG, "line 5 from the daemon was cut short by the end of the connection (12 bytes");
    m = expect_message(c, "closed");
    CHECK_STR(m->reason, "the daemon closed the connection");
    CHECK_INT(m->touch_count, 2);
    /* its JSON says the same as its fields (dispatch.c builds both) */
    CHECK(strstr(m->json, "{\"type\":\"closed\",\"reason\":\"the daemon closed the connection\",\"touches\":[") == m->json);
    CHECK(strstr(m->json, "\"id\":5,\"phase\":\"cancelled\",\"window\":\"m\",\"view\":\"v\"") != NULL);
    CHECK(strstr(m->json, "\"tapCount\":2,\"reason\":\"disconnected\"}") != NULL);
    const touchd_touch *t = m->touches[0].id == 5 ? &m->touches[0] : &m->touches[1];
    const touchd_touch *u = t == &m->touches[0] ? &m->touches[1] : &m->touches[0];
    CHECK_INT(t->id, 5);
    CHECK_STR(t->phase, "cancelled");
    CHECK_STR(t->reason, "disconnected");
    CHECK_STR(t->window, "m");
    CHECK_STR(t->view, "v");
    CHECK_NEAR(t->x, 3);
    CHECK_NEAR(t->y, 4);
    CHECK_NEAR(t->view_x, 2.5);
    CHECK_INT(t->tap_count, 2);
    CHECK_INT(u->id, 6);
    CHECK(u->window == NULL && u->view == NULL);
    CHECK_STR(u->reason, "disconnected");
    CHECK_CONTAINS(m->json, "\"id\":5,\"phase\":\"cancelled\",\"window\":\"m\",\"view\":\"v\"");
    CHECK(touchd_client_next(c, 0) == NULL);
    CHECK_INT(errno, ENOTCONN);
    CHECK_INT(touchd_client_fd(c), -1);
    touchd_client_close(c);
    end();
}

static void test_requests(void) {
    begin("requests: lines, replies matched, bad requests refused locally", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    CHECK_INT(touchd_client_request(c, "{\"ping\":"), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_CONTAINS(touchd_client_error(c), "touchd_client_request: not JSON");
    CHECK_INT(touchd_client_request(c, "[1]"), -1);
    CHECK_CONTAINS(touchd_client_error(c), "a array, not a JSON object");
    CHECK_INT(touchd_client_request(c, "{} {}"), -1);
    CHECK_CONTAINS(touchd_client_error(c), "not JSON: unexpected character (column 4)");
    CHECK_INT(touchd_client_request(c, NULL), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(touchd_client_request(c, "{\"attach\":{\"id\":\"w\",\"frame\":[10,20,100,100]}}"), 1);
    CHECK_INT(touchd_client_request(c, "{\n\"ping\": 1\n}"), 2);
    CHECK_INT(touchd_client_request(c, "{\"subscribe\":{}}"), 3);
    CHECK_INT(touchd_client_request(c, "{\"update\":{\"window\":\"w\",\"changes\":[{\"window\":{\"frame\":[30,40,9,9]}}]}}"), 4);
    char got[512] = {0};
    size_t n = 0;
    while (n < 4 || got[n - 1] != '\n' || strstr(got, "changes") == NULL) {
        ssize_t r = read(s, got + n, sizeof got - 1 - n);
        CHECK(r > 0);
        n += (size_t)r;
    }
    CHECK_STR(got, "{\"attach\":{\"id\":\"w\",\"frame\":[10,20,100,100]}}\n{ \"ping\": 1 }\n{\"subscribe\":{}}\n"
                   "{\"update\":{\"window\":\"w\",\"changes\":[{\"window\":{\"frame\":[30,40,9,9]}}]}}\n");
    send_str(s, "{\"type\":\"hello\"}\n{\"type\":\"snapshot\",\"touches\":[]}\n"
                "{\"type\":\"attached\",\"window\":\"w\",\"version\":1,\"line\":1}\n"
                "{\"type\":\"frame\",\"touches\":[{\"id\":1,\"phase\":\"began\",\"window\":\"w\",\"location\":[1,2]}]}\n"
                "{\"type\":\"pong\",\"ping\":1}\n{\"type\":\"snapshot\",\"touches\":[]}\n"
                "{\"type\":\"updated\",\"window\":\"w\",\"version\":2,\"line\":4}\n"
                "{\"type\":\"frame\",\"touches\":[{\"id\":1,\"phase\":\"moved\",\"window\":\"w\",\"location\":[1,2]}]}\n"
                "{\"type\":\"pong\",\"ping\":1}\n");
    expect_message(c, "hello");
    const touchd_message *m = expect_message(c, "snapshot");
    CHECK_INT(m->line, 0);
    m = expect_message(c, "attached");
    CHECK_INT(m->line, 1);
    m = expect_message(c, "frame");
    CHECK_NEAR(m->touches[0].x, 11);                   /* the window's origin (10, 20) added */
    CHECK_NEAR(m->touches[0].y, 22);
    m = expect_message(c, "pong");
    CHECK_INT(m->line, 2);
    m = expect_message(c, "snapshot");
    CHECK_INT(m->line, 3);
    m = expect_message(c, "updated");
    CHECK_INT(m->line, 4);
    m = expect_message(c, "frame");
    CHECK_NEAR(m->touches[0].x, 31);                   /* moved to (30, 40) by the update */
    CHECK_NEAR(m->touches[0].y, 42);
    m = expect_message(c, "pong");
    CHECK_INT(m->line, 0);                             /* a pong nobody asked for */
    close(s);
    m = expect_message(c, "closed");
    CHECK_INT(m->touch_count, 1);
    CHECK_NEAR(m->touches[0].x, 31);
    CHECK_INT(touchd_client_request(c, "{\"ping\":2}"), -1);
    CHECK_INT(errno, ENOTCONN);
    touchd_client_close(c);
    end();
}

/* The request builders' lines, and a calibration's messages read into their fields. */
static void test_builders_and_calibration(void) {
    begin("builders: output rotation, calibrate, cancel; calibration messages parsed", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    const double targets[3][2] = {{10, 20}, {700.5, 20}, {400, 400}};
    CHECK_INT(touchd_client_rotate_output(c, "DSI-\"1", 90), 1);
    CHECK_INT(touchd_client_calibrate(c, "event5", NULL, 0), 2);
    CHECK_INT(touchd_client_calibrate(c, "event5", targets, 3), 3);
    CHECK_INT(touchd_client_cancel_calibration(c, "event5"), 4);
    CHECK_INT(touchd_client_calibrate(c, NULL, NULL, 0), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_CONTAINS(touchd_client_error(c), "touchd_client_calibrate: no device");
    CHECK_INT(touchd_client_calibrate(c, "event5", NULL, 2), -1);
    CHECK_INT(errno, EINVAL);
    char got[1024] = {0};
    size_t n = 0;
    while (n < 4 || got[n - 1] != '\n' || strstr(got, "cancel") == NULL) {
        ssize_t r = read(s, got + n, sizeof got - 1 - n);
        CHECK(r > 0);
        n += (size_t)r;
    }
    CHECK_STR(got, "{\"output\":{\"id\":\"DSI-\\\"1\",\"rotation\":90}}\n"
                   "{\"calibrate\":{\"device\":\"event5\"}}\n"
                   "{\"calibrate\":{\"device\":\"event5\",\"targets\":[[10.0,20.0],[700.5,20.0],[400.0,400.0]]}}\n"
                   "{\"calibrate\":{\"device\":\"event5\",\"cancel\":true}}\n");
    send_str(s, "{\"type\":\"hello\"}\n"
                "{\"type\":\"output\",\"output\":{\"id\":\"DSI-1\",\"width\":800.0,\"height\":480.0,\"rotation\":90},\"line\":1}\n"
                "{\"type\":\"calibration\",\"device\":\"event5\",\"output\":\"DSI-1\",\"target\":0,\"count\":5,\"point\":[79.9,47.9],\"line\":2}\n"
                "{\"type\":\"calibration\",\"device\":\"event5\",\"output\":\"DSI-1\",\"target\":3,\"count\":5,\"point\":[79.9,431.1],"
                "\"retry\":\"misclick\",\"message\":\"target 4 looks like a misclick\"}\n"
                "{\"type\":\"calibrated\",\"device\":\"event5\",\"output\":\"DSI-1\",\"matrix\":[0,1.1,-0.02,1.05,0,-0.04],"
                "\"residual\":0.41,\"maxResidual\":0.77,\"entry\":{\"match\":{\"name\":\"Panel\"},\"calibration\":[0,1.1,-0.02,1.05,0,-0.04]}}\n"
                "{\"type\":\"calibrationEnded\",\"device\":\"event5\",\"reason\":\"cancelled\",\"line\":4}\n"
                "{\"type\":\"calibrated\",\"device\":\"event5\",\"output\":\"DSI-1\",\"matrix\":[0,1],\"residual\":0,\"maxResidual\":0}\n");
    expect_message(c, "hello");
    const touchd_message *m = expect_message(c, "output");
    CHECK_INT(m->line, 1);
    m = expect_message(c, "calibration");
    CHECK_INT(m->line, 2);
    CHECK_STR(m->device, "event5");
    CHECK_STR(m->output, "DSI-1");
    CHECK_INT(m->target_index, 0);
    CHECK_INT(m->target_count, 5);
    CHECK_NEAR(m->target_x, 79.9);
    CHECK_NEAR(m->target_y, 47.9);
    CHECK(m->retry == NULL);
    m = expect_message(c, "calibration");
    CHECK_INT(m->line, 0);
    CHECK_INT(m->target_index, 3);
    CHECK_STR(m->retry, "misclick");
    CHECK_CONTAINS(m->retry_message, "misclick");
    m = expect_message(c, "calibrated");
    CHECK_NEAR(m->matrix[1], 1.1);
    CHECK_NEAR(m->matrix[5], -0.04);
    CHECK_NEAR(m->rms, 0.41);
    CHECK_NEAR(m->max_error, 0.77);
    m = expect_message(c, "calibrationEnded");
    CHECK_INT(m->line, 4);
    CHECK_STR(m->reason, "cancelled");
    expect_error(c, EBADMSG, "matrix: 2 numbers, not 6");
    close(s);
    expect_message(c, "closed");
    touchd_client_close(c);
    end();
}

/* The screen reader's builders' lines, and its messages read into their fields. */
static void test_screen_reader(void) {
    begin("screen reader: builders, focus, actions, speech, synthesized; malformed ones refused", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    CHECK_INT(touchd_client_screen_reader(c, "screen", 1), 1);
    CHECK_INT(touchd_client_announce(c, "screen", "Card \"accepted\""), 2);
    CHECK_INT(touchd_client_accessibility_changed(c, "screen", 1, NULL), 3);
    CHECK_INT(touchd_client_accessibility_changed(c, "screen", 0, "coffee"), 4);
    CHECK_INT(touchd_client_announce(c, "screen", NULL), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_CONTAINS(touchd_client_error(c), "touchd_client_announce: no output or text");
    char got[1024] = {0};
    size_t n = 0;
    while (n < 4 || got[n - 1] != '\n' || strstr(got, "layout") == NULL) {
        ssize_t r = read(s, got + n, sizeof got - 1 - n);
        CHECK(r > 0);
        n += (size_t)r;
    }
    CHECK_STR(got, "{\"screenReader\":{\"output\":\"screen\",\"on\":true}}\n"
                   "{\"announce\":{\"output\":\"screen\",\"text\":\"Card \\\"accepted\\\"\"}}\n"
                   "{\"accessibilityChanged\":{\"output\":\"screen\",\"screen\":true}}\n"
                   "{\"accessibilityChanged\":{\"output\":\"screen\",\"layout\":true,\"focus\":\"coffee\"}}\n");
    send_str(s, "{\"type\":\"hello\"}\n"
                "{\"type\":\"screenReader\",\"output\":\"screen\",\"on\":true,\"line\":1}\n"
                "{\"type\":\"accessibilityFocus\",\"seq\":2,\"time\":1.3,\"output\":\"screen\",\"window\":\"main\",\"view\":\"coffee\"}\n"
                "{\"type\":\"speech\",\"seq\":3,\"time\":1.3,\"output\":\"screen\",\"text\":\"Coffee, large, button\",\"interrupt\":true,\"language\":\"en\"}\n"
                "{\"type\":\"speech\",\"seq\":4,\"time\":1.4,\"output\":\"screen\",\"control\":\"pause\"}\n"
                "{\"type\":\"accessibility\",\"seq\":5,\"time\":2.2,\"output\":\"screen\",\"action\":\"escape\",\"view\":null}\n"
                "{\"type\":\"control\",\"seq\":6,\"time\":2.2,\"control\":\"coffee\",\"event\":\"touchDown\",\"touch\":1,\"synthesized\":true}\n"
                "{\"type\":\"speech\",\"seq\":7,\"time\":2.3,\"output\":\"screen\",\"text\":\"x\",\"interrupt\":1}\n"
                "{\"type\":\"accessibility\",\"seq\":8,\"time\":2.3,\"output\":\"screen\",\"view\":\"coffee\"}\n"
                "{\"type\":\"accessibilityFocus\",\"seq\":9,\"time\":2.4,\"view\":\"coffee\"}\n");
    expect_message(c, "hello");
    const touchd_message *m = expect_message(c, "screenReader");
    CHECK_INT(m->line, 1);
    m = expect_message(c, "accessibilityFocus");
    CHECK_STR(m->output, "screen");
    CHECK_STR(m->view, "coffee");
    CHECK_STR(m->window, "main");
    m = expect_message(c, "speech");
    CHECK_STR(m->text, "Coffee, large, button");
    CHECK_INT(m->interrupt, 1);
    CHECK_STR(m->language, "en");
    CHECK(m->speech_control == NULL);
    m = expect_message(c, "speech");
    CHECK_STR(m->speech_control, "pause");
    CHECK(m->text == NULL);
    m = expect_message(c, "accessibility");
    CHECK_STR(m->action, "escape");
    CHECK(m->view == NULL);
    m = expect_message(c, "control");
    CHECK_INT(m->synthesized, 1);
    expect_error(c, EBADMSG, "interrupt: a int, not a boolean");
    expect_error(c, EBADMSG, "action: missing");
    expect_error(c, EBADMSG, "output: missing");
    close(s);
    expect_message(c, "closed");
    touchd_client_close(c);
    end();
}

static void test_too_many_touches(void) {
    begin("a frame with more touches than can be down: EPROTO", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    pid_t writer = fork();
    if (writer == 0) {
        send_str(s, "{\"type\":\"frame\",\"touches\":[");
        char t[128];
        for (int i = 0; i <= TOUCHD_CLIENT_MAX_DOWN; i++) {
            snprintf(t, sizeof t, "%s{\"id\":%d,\"phase\":\"began\",\"location\":[1,1]}", i ? "," : "", i + 1);
            send_str(s, t);
        }
        send_str(s, "]}\n{\"type\":\"hello\"}\n");
        _exit(0);
    }
    close(s);
    expect_error(c, EPROTO, "line 1 (frame): 1025 touches (more than 1024 at once)");
    expect_message(c, "hello");
    waitpid(writer, NULL, 0);
    expect_message(c, "closed");
    touchd_client_close(c);
    end();
}

/* Writes a frame of touches (id, phase) to fd. */
static void send_frame(int fd, size_t n, const long *ids, const char *const *phases) {
    send_str(fd, "{\"type\":\"frame\",\"touches\":[");
    char t[160];
    for (size_t i = 0; i < n; i++) {
        snprintf(t, sizeof t, "%s{\"id\":%ld,\"phase\":\"%s\",\"location\":[%ld,1]}", i ? "," : "", ids[i], phases[i], ids[i]);
        send_str(fd, t);
    }
    send_str(fd, "]}\n");
}

/* A closed message listing exactly the touches first..last, each at its last place (x = id). */
static void expect_closed_ids(touchd_client *c, long first, long last) {
    const touchd_message *m = expect_message(c, "closed");
    CHECK_INT(m->touch_count, last - first + 1);
    for (size_t i = 0; i < m->touch_count; i++) {
        long id = m->touches[i].id;
        if (id < first || id > last) FAIL("closed lists touch %ld", id);
        for (size_t j = 0; j < i; j++)
            if (m->touches[j].id == id) FAIL("closed lists touch %ld twice", id);
        CHECK_NEAR(m->touches[i].x, (double)id);
    }
}

static void test_frames_checked_before_applied(void) {
    begin("frames checked against the touch table before they are applied: EPROTO, table unchanged", 20);
    int s;
    touchd_client *c = fake_daemon(&s);
    pid_t writer = fork();
    if (writer == 0) {
        static long ids[2048];
        static const char *phases[2048];
        for (int i = 0; i < 1000; i++) ids[i] = i + 1, phases[i] = "began";          /* line 1: 1..1000 down */
        send_frame(s, 1000, ids, phases);
        for (int i = 0; i < 512; i++) {                /* line 2: 512 new ids, each ended then began */
            ids[2 * i] = ids[2 * i + 1] = 2000 + i;
            phases[2 * i] = "ended", phases[2 * i + 1] = "began";
        }
        send_frame(s, 1024, ids, phases);
        ids[0] = 5, phases[0] = "moved", ids[1] = 3000, phases[1] = "began", ids[2] = 5, phases[2] = "moved";
        send_frame(s, 3, ids, phases);                 /* line 3: touch 5 twice (and a new one) */
        ids[0] = 7, phases[0] = "ended", ids[1] = 7, phases[1] = "ended";
        send_frame(s, 2, ids, phases);                 /* line 4: an old touch ended twice */
        for (int i = 0; i < 10; i++) ids[i] = i + 1, phases[i] = "ended";             /* line 5: ends 1..10 */
        for (int i = 0; i < 34; i++) ids[10 + i] = 4000 + i, phases[10 + i] = "began"; /* and begins 34: 1,024 */
        send_frame(s, 44, ids, phases);
        ids[0] = 11, phases[0] = "ended", ids[1] = 5000, phases[1] = "began", ids[2] = 5001, phases[2] = "began";
        send_frame(s, 3, ids, phases);                 /* line 6: one ends, two begin: 1,025 */
        ids[0] = 11, phases[0] = "cancelled", ids[1] = 5000, phases[1] = "began";
        send_frame(s, 2, ids, phases);                 /* line 7: one cancelled, one begins: 1,024 */
        send_str(s, "{\"type\":\"hello\"}\n");
        _exit(0);
    }
    close(s);
    const touchd_message *m = expect_message(c, "frame");
    CHECK_INT(m->touch_count, 1000);
    expect_error(c, EPROTO, "line 2 (frame): touches[1]: touch 2000 is listed twice in one frame");
    expect_error(c, EPROTO, "line 3 (frame): touches[2]: touch 5 is listed twice in one frame");
    expect_error(c, EPROTO, "line 4 (frame): touches[1]: touch 7 is listed twice in one frame");
    m = expect_message(c, "frame");
    CHECK_INT(m->touch_count, 44);
    expect_error(c, EPROTO, "line 6 (frame): 1025 touches would be down (at most 1024)");
    m = expect_message(c, "frame");
    CHECK_INT(m->touch_count, 2);
    expect_message(c, "hello");
    CHECK_INT(waitpid(writer, NULL, 0), writer);
    /* Down: 12..1000 (989), 4000..4033 (34), 5000: 1,024; nothing of the refused frames. */
    const touchd_message *closed = expect_message(c, "closed");
    CHECK_INT(closed->touch_count, 1024);
    int lo = 0, mid = 0, five = 0;
    for (size_t i = 0; i < closed->touch_count; i++) {
        long id = closed->touches[i].id;
        if (id >= 12 && id <= 1000) lo++;
        else if (id >= 4000 && id <= 4033) mid++;
        else if (id == 5000) five++;
        else FAIL("closed lists touch %ld", id);
        CHECK_NEAR(closed->touches[i].x, (double)id);
    }
    CHECK_INT(lo, 989);
    CHECK_INT(mid, 34);
    CHECK_INT(five, 1);
    touchd_client_close(c);

    /* A snapshot listing a touch twice: EPROTO, the table as before. */
    c = fake_daemon(&s);
    send_str(s, "{\"type\":\"snapshot\",\"touches\":[{\"id\":1,\"phase\":\"stationary\",\"location\":[1,1]}]}\n"
                "{\"type\":\"snapshot\",\"touches\":[{\"id\":2,\"phase\":\"stationary\",\"location\":[2,1]},"
                "{\"id\":2,\"phase\":\"stationary\",\"location\":[2,1]}]}\n");
    close(s);
    expect_message(c, "snapshot");
    expect_error(c, EPROTO, "line 2 (snapshot): touches[1]: touch 2 is listed twice");
    expect_closed_ids(c, 1, 1);
    touchd_client_close(c);
    end();
}

static long long cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

static void test_request_while_flooded(void) {
    begin("request: a daemon that stops reading and floods: ETIMEDOUT by the deadline, no busy loop, nothing lost", 30);
    int s;
    touchd_client *c = fake_daemon(&s);
    CHECK_INT(touchd_client_set_max_line(c, 1024), 0);   /* a small read buffer: it fills at once */
    pid_t writer = fork();
    if (writer == 0) {                                  /* numbered lines, forever; reads nothing */
        close(touchd_client_fd(c));                     /* (so that it ends with the test) */
        char line[64];
        for (long i = 1;; i++) {
            int n = snprintf(line, sizeof line, "{\"type\":\"pong\",\"seq\":%ld}\n", i);
            for (int off = 0; off < n;) {
                ssize_t w = write(s, line + off, (size_t)(n - off));
                if (w <= 0) _exit(0);
                off += (int)w;
            }
        }
    }
    size_t big = 8u << 20;                              /* more than the socket's buffers take */
    char *request = malloc(big + 32);
    CHECK(request != NULL);
    strcpy(request, "{\"ping\":\"");
    memset(request + 9, 'p', big);
    strcpy(request + 9 + big, "\"}");
    long long cpu0 = cpu_ms(), t0 = now_ms();
    long line = touchd_client_request(c, request);
    int e = errno;
    long long took = now_ms() - t0, cpu = cpu_ms() - cpu0;
    fprintf(stderr, "  request returned after %lld ms, having used %lld ms of CPU\n", took, cpu);
    free(request);
    CHECK_INT(line, -1);
    CHECK_INT(e, ETIMEDOUT);
    CHECK_CONTAINS(touchd_client_error(c), "touchd_client_request: the daemon did not take request 1 within 5000 ms");
    CHECK_CONTAINS(touchd_client_error(c), "its messages fill the read buffer");
    CHECK_CONTAINS(touchd_client_error(c), "half sent: the connection's sending side is shut");
    CHECK(took >= 4900 && took < 8000);                 /* by its deadline (5 s) */
    CHECK(cpu < 1000);                                  /* waiting, not spinning (was 100 % of a core) */
    /* What arrived meanwhile is all there, in order, for next(). */
    kill(writer, SIGKILL);
    CHECK_INT(waitpid(writer, NULL, 0), writer);
    close(s);
    long want = 1;
    const touchd_message *m;
    for (;;) {
        m = touchd_client_next(c, 2000);
        if (!m && errno == EBADMSG) continue;           /* the line the writer was killed in */
        if (!m) FAIL("errno %d: %s", errno, touchd_client_error(c));
        if (strcmp(m->type, "closed") == 0) break;
        CHECK_STR(m->type, "pong");
        CHECK_INT(m->seq, want);
        want++;
    }
    fprintf(stderr, "  %ld messages read while the request waited, then delivered by next\n", want - 1);
    CHECK(want > 1000);
    touchd_client_close(c);
    end();
}

static void test_strict_json(void) {
    begin("strict JSON: NaN, Infinity, out-of-range numbers, invalid UTF-8 and \\u0000 refused", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    send_str(s, "{\"type\":\"scroll\",\"view\":\"list\",\"offset\":[NaN,1]}\n"                       /* 1 */
                "{\"type\":\"scroll\",\"view\":\"list\",\"offset\":[0,Infinity]}\n"                  /* 2 */
                "{\"type\":\"scroll\",\"view\":\"list\",\"offset\":[0,-Infinity]}\n"                 /* 3 */
                "{\"type\":\"scroll\",\"view\":\"list\",\"offset\":[1e400,0]}\n"                     /* 4 */
                "{\"type\":\"frame\",\"seq\":99999999999999999999,\"touches\":[]}\n"                 /* 5 */
                "{\"type\":\"frame\",\"touches\":[{\"id\":1,\"phase\":\"began\",\"window\":\"\xc0\xaf\",\"location\":[1,1]}]}\n" /* 6: overlong '/' */
                "{\"type\":\"frame\",\"touches\":[{\"id\":1,\"phase\":\"began\",\"window\":\"\xed\xa0\x80\",\"location\":[1,1]}]}\n" /* 7: a surrogate */
                "{\"type\":\"frame\",\"touches\":[{\"id\":1,\"phase\":\"began\",\"view\":\"\xf4\x90\x80\x80\",\"location\":[1,1]}]}\n" /* 8: > U+10FFFF */
                "{\"type\":\"control\",\"control\":\"a\\u0000b\",\"event\":\"touchDown\"}\n"         /* 9 */
                "{\"type\":\"pong\",\"a\\u0000\":1}\n"                                               /* 10 */
                "{\"type\":\"pong\",\"s\":\"\\ud800\"}\n"                                            /* 11 */
                "{\"type\":\"pong\",\"s\":\"\\udc00\"}\n"                                            /* 12 */
                "{\"type\":\"pong\",\"s\":\"a\tb\"}\n"                                               /* 13 */
                "{\"type\":\"pong\",\"v\":1.}\n"                                                     /* 14 */
                "{\"type\":\"frame\",\"touches\":[{\"id\":2,\"phase\":\"began\",\"location\":[1e999,1]}]}\n" /* 15 */
                "{\"type\":\"control\",\"control\":\"caf\\u00e9 \\ud83d\\ude00 \xc3\xa9\",\"event\":\"touchDown\","
                "\"seq\":-9223372036854775808,\"time\":1e-400}\n"                                    /* 16: all valid */
                "{\"type\":\"frame\",\"touches\":[{\"id\":9223372036854775807,\"phase\":\"began\",\"window\":\"\xe2\x82\xac\","
                "\"location\":[1.5e308,-1.5e308]}]}\n");                                             /* 17: valid */
    close(s);
    expect_error(c, EBADMSG, "line 1 from the daemon is not strict JSON: NaN and Infinity are not JSON numbers (column 42)");
    expect_error(c, EBADMSG, "line 2 from the daemon is not strict JSON: NaN and Infinity are not JSON numbers (column 44)");
    expect_error(c, EBADMSG, "line 3 from the daemon is not strict JSON: NaN and Infinity are not JSON numbers (column 44)");
    expect_error(c, EBADMSG, "line 4 from the daemon: offset[0]: a number out of range (not a finite double)");
    expect_error(c, EBADMSG, "line 5 from the daemon is not strict JSON: an integer out of range (beyond 64 bits) (column 23)");
    expect_error(c, EBADMSG, "line 6 from the daemon is not strict JSON: invalid UTF-8 (column 62)");
    expect_error(c, EBADMSG, "line 7 from the daemon is not strict JSON: invalid UTF-8 (column 62)");
    expect_error(c, EBADMSG, "line 8 from the daemon is not strict JSON: invalid UTF-8 (column 60)");
    expect_error(c, EBADMSG, "line 9 from the daemon is not strict JSON: a NUL character (\\u0000) in a string (column 31)");
    expect_error(c, EBADMSG, "line 10 from the daemon is not strict JSON: a NUL character (\\u0000) in a string (column 18)");
    expect_error(c, EBADMSG, "line 11 from the daemon is not strict JSON: a lone high surrogate escape in a string (column 21)");
    expect_error(c, EBADMSG, "line 12 from the daemon is not strict JSON: a lone low surrogate escape in a string (column 21)");
    expect_error(c, EBADMSG, "line 13 from the daemon is not strict JSON: a control character in a string (it must be escaped) (column 22)");
    expect_error(c, EBADMSG, "line 14 from the daemon is not strict JSON: a number needs digits after its '.' (column 22)");
    expect_error(c, EBADMSG, "line 15 from the daemon: touches[0].location[0]: a number out of range (not a finite double)");
    const touchd_message *m = expect_message(c, "control");
    CHECK_STR(m->control, "caf\xc3\xa9 \xf0\x9f\x98\x80 \xc3\xa9");
    CHECK_INT(m->seq, -9223372036854775807L - 1);
    CHECK_NEAR(m->time, 0);
    m = expect_message(c, "frame");
    CHECK_INT(m->touches[0].id, 9223372036854775807L);
    CHECK_STR(m->touches[0].window, "\xe2\x82\xac");
    CHECK(m->touches[0].x == 1.5e308 && m->touches[0].y == -1.5e308);
    m = expect_message(c, "closed");                    /* only the valid frame's touch went down */
    CHECK_INT(m->touch_count, 1);
    CHECK_INT(m->touches[0].id, 9223372036854775807L);
    touchd_client_close(c);

    c = fake_daemon(&s);                                /* requests are held to the same rules */
    CHECK_INT(touchd_client_request(c, "{\"ping\":NaN}"), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_CONTAINS(touchd_client_error(c), "touchd_client_request: not strict JSON: NaN and Infinity are not JSON numbers (column 9)");
    CHECK_INT(touchd_client_request(c, "{\"ping\":1e400}"), -1);
    CHECK_CONTAINS(touchd_client_error(c), "touchd_client_request: ping: a number out of range (not a finite double)");
    CHECK_INT(touchd_client_request(c, "{\"attach\":{\"id\":\"a\\u0000b\"}}"), -1);
    CHECK_CONTAINS(touchd_client_error(c), "touchd_client_request: not strict JSON: a NUL character (\\u0000) in a string (column 19)");
    CHECK_INT(touchd_client_request(c, "{\"ping\":\"\xed\xa0\x80\"}"), -1);
    CHECK_CONTAINS(touchd_client_error(c), "not strict JSON: invalid UTF-8 (column 10)");
    CHECK_INT(touchd_client_request(c, "{\"ping\":\"\\ud83d\\ude00\"}"), 1);   /* a pair is fine */
    close(s);
    touchd_client_close(c);
    end();
}

static void test_refused_replies_still_answer(void) {
    begin("a reply refused (EBADMSG, EPROTO) still answers its request: the next replies keep their lines", 10);
    int s;
    touchd_client *c = fake_daemon(&s);
    CHECK_INT(touchd_client_request(c, "{\"ping\":1}"), 1);
    CHECK_INT(touchd_client_request(c, "{\"ping\":2}"), 2);
    CHECK_INT(touchd_client_request(c, "{\"subscribe\":{}}"), 3);
    send_str(s, "{\"type\":\"hello\"}\n"
                "{\"type\":\"snapshot\",\"touches\":[{\"id\":1,\"phase\":\"stationary\",\"location\":[1,1]},"
                "{\"id\":1,\"phase\":\"stationary\",\"location\":[1,1]}]}\n"     /* after hello: answers nothing */
                "{\"type\":\"pong\",\"time\":\"soon\"}\n"                         /* answers ping 1, unreadable */
                "{\"type\":\"pong\"}\n"                                           /* ping 2 */
                "{\"type\":\"snapshot\",\"touches\":[]}\n");                      /* the subscribe, 3 */
    close(s);
    expect_message(c, "hello");
    expect_error(c, EPROTO, "line 2 (snapshot): touches[1]: touch 1 is listed twice");
    expect_error(c, EBADMSG, "line 3 (pong): time: a string, not a number");
    const touchd_message *m = expect_message(c, "pong");
    CHECK_INT(m->line, 2);
    m = expect_message(c, "snapshot");
    CHECK_INT(m->line, 3);
    expect_message(c, "closed");
    touchd_client_close(c);
    end();
}

static void test_connect_errors(void) {
    begin("connect: errno and words", 10);
    const char *missing = temp_path("missing.sock");
    CHECK(touchd_client_connect(missing) == NULL);
    CHECK_INT(errno, ENOENT);
    CHECK_CONTAINS(touchd_client_error(NULL), missing);
    CHECK_CONTAINS(touchd_client_error(NULL), "No such file or directory (is the daemon running?");
    char longpath[200];
    memset(longpath, 'p', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = 0;
    CHECK(touchd_client_connect(longpath) == NULL);
    CHECK_INT(errno, ENAMETOOLONG);
    CHECK_CONTAINS(touchd_client_error(NULL), "socket path too long (199 bytes");
    setenv("TOUCHD_SOCKET", missing, 1);
    CHECK(touchd_client_connect(NULL) == NULL);
    CHECK_CONTAINS(touchd_client_error(NULL), missing);
    unsetenv("TOUCHD_SOCKET");
    CHECK(touchd_client_next(NULL, 0) == NULL);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(touchd_client_fd(NULL), -1);
    touchd_client_close(NULL);
    end();
}

int main(void) {
    test_connect_errors();
    test_malformed_lines();
    test_strict_json();
    test_long_line();
    test_requests();
    test_builders_and_calibration();
    test_screen_reader();
    test_refused_replies_still_answer();
    test_cut_mid_touch();
    test_too_many_touches();
    test_frames_checked_before_applied();
    test_time_bounds();
    test_request_while_flooded();
    test_flood();
    remove_tmpdir();
    fprintf(stderr, "test_hostile: all passed\n");
    return 0;
}
