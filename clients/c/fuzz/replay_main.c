/* Runs the fuzz target once on each file named (seeds, saved crashes) without libFuzzer, so
 * the replay needs only a C compiler with AddressSanitizer (gcc): scripts/c-client fuzz --replay. */
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
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        fprintf(stderr, "%s: %zu bytes: ok\n", argv[i], n);
    }
    return 0;
}
