"""Programs the fault and concurrency tests run in other processes (`python -m tests.faults.NAME`,
or as multiprocessing targets)."""
