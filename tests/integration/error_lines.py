"""What rocescope writes on standard error when it fails (the manual page,
EXIT STATUS): every error is one line, `rocescope: WHAT: WHY` (WHAT left out
for a problem of the whole command line), with no empty field; a usage error
(exit status 2) adds one line pointing to --help."""

TRY = ("Try 'rocescope --help'.", "Try 'rocescope merge --help'.",
       "Try 'rocescope localize --help'.")


def problem(stderr, status, errors=1):
    """None when stderr is what a run with this exit status must write
    (errors: how many error lines, one per problem), else what is wrong."""
    lines = stderr.splitlines()
    if status == 0:
        return None
    if status == 2:
        if len(lines) != 2 or lines[1] not in TRY:
            return f"a usage error is one line and the --help line: {lines}"
        lines = lines[:1]
    elif len(lines) != errors:
        return f"{errors} error line(s) expected: {lines}"
    for ln in lines:
        if (not ln.startswith("rocescope: ") or ": :" in ln or ln.rstrip().endswith(":")
                or ln != ln.strip() or len(ln) <= len("rocescope: ")):
            return f"not a `rocescope: WHAT: WHY` line: {ln!r}"
    return None
