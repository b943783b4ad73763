"""A test's checks: each one counted, each failure kept and printed as it
happens (consistency.py, plugin_features.py)."""


class Checker:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL:", what)
        return cond
