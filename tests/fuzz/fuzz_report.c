/*
 * fuzz_report.c - libFuzzer target: the input is a JSON report, read the
 * way `rocescope merge` reads one (roce_report_parse, report.h: the file
 * mapped and walked member by member with json-c's tokener, every value
 * checked, the latency distributions rebuilt and compared with the
 * percentiles written). A report that parses is merged twice into an empty
 * report (frame numbers and flow ids of the second copy continue the
 * first's) and both, the parsed and the merged one, are written as JSON and
 * text to /dev/null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_memfile.h"
#include "fuzz_target.h"
#include "report.h"

#define ERR_LEN    512
#define REPORT_TOP 5u
#define COPIES     2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *devnull = fz_devnull();
    char path[FZ_PATH_LEN], err[ERR_LEN];
    struct roce_report one, acc;

    int fd = fz_memfile(data, size, path);
    if (roce_report_parse(path, &one, err, sizeof err) == 0) {
        roce_report_json(&one, devnull);
        roce_report_text(&one, devnull, REPORT_TOP);
        roce_report_init(&acc);
        int rc = 0;
        for (int i = 0; i < COPIES && rc == 0; i++)
            rc = roce_report_merge(&acc, &one);
        if (rc == 0) {
            roce_report_json(&acc, devnull);
            roce_report_text(&acc, devnull, REPORT_TOP);
        }
        roce_report_free(&acc);
        roce_report_free(&one);
    }
    close(fd);
    return 0;
}
