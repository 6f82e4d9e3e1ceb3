/* Runs a fuzz target once on each file named (seeds, saved crashes) without libFuzzer, so the
 * replay needs only a C compiler with AddressSanitizer and UBSan (gcc): scripts/c-client fuzz
 * --replay. Each file is read whole, whatever its size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        uint8_t *buf = NULL;
        size_t n = 0, cap = 0;
        for (;;) {
            if (n == cap) {
                cap = cap ? cap * 2 : 65536;
                buf = realloc(buf, cap);
                if (!buf) return 1;
            }
            size_t got = fread(buf + n, 1, cap - n, f);
            n += got;
            if (got == 0) break;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        fprintf(stderr, "%s: %zu bytes: ok\n", argv[i], n);
    }
    return 0;
}
