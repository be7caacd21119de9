# Not hostile: a bot that uses the standard library the way real bots do (and then some), so the
# sandbox's system-call allow-list is checked against legitimate use in every tier. It must play
# the game out without failing. benchmarks/syscalls.py traces it to measure the allow-list.
import array
import base64
import bisect
import bz2
import collections
import concurrent.futures
import contextlib
import copy
import csv
import dataclasses
import datetime
import decimal
import difflib
import enum
import fractions
import functools
import gc
import hashlib
import heapq
import inspect
import io
import itertools
import json
import logging
import lzma
import math
import operator
import os
import pathlib
import pickle
import platform
import queue
import random
import re
import resource
import secrets
import select
import selectors
import signal
import sqlite3
import statistics
import string
import struct
import sys
import textwrap
import threading
import time
import traceback
import typing
import unicodedata
import uuid
import warnings
import weakref
import zlib

from lineit.engine import determinize, parse_action


@dataclasses.dataclass
class Memory:
    seen: collections.Counter = dataclasses.field(default_factory=collections.Counter)


class Colour(enum.Enum):
    RED = 1


def exercise():
    here = pathlib.Path(__file__).parent
    assert here.is_dir() and sorted(os.listdir(here))
    assert inspect.getsource(exercise)  # reads its own file
    assert hashlib.sha256(b"x").hexdigest() and zlib.crc32(b"x") and bz2.compress(b"x") and lzma.compress(b"x")
    assert pickle.loads(pickle.dumps({"a": [1, 2]})) == {"a": [1, 2]}
    assert json.loads(json.dumps({"a": 1})) == {"a": 1}
    assert decimal.Decimal("1.1") + decimal.Decimal("2.2") == decimal.Decimal("3.3")
    assert fractions.Fraction(1, 3) * 3 == 1 and statistics.mean([1, 2, 3]) == 2
    assert datetime.datetime.now(datetime.timezone.utc).year >= 2024
    assert time.monotonic() > 0 and time.process_time() >= 0 and time.time() > 0 and time.perf_counter() > 0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0
    assert resource.getrlimit(resource.RLIMIT_AS)[0] > 0
    assert os.cpu_count() and os.getpid() and platform.system() == "Linux" and sys.getrecursionlimit()
    assert uuid.uuid4() and secrets.token_hex(8) and random.SystemRandom().random() < 1
    assert base64.b64encode(b"x") and struct.pack(">I", 1) and array.array("i", [1])
    assert unicodedata.name("a") and difflib.SequenceMatcher(None, "ab", "ac").ratio() > 0
    assert textwrap.fill("x " * 50, 20) and string.ascii_letters and re.fullmatch(r"\w+", "abc")
    with sqlite3.connect(":memory:") as database:
        database.execute("create table t (x)")
        database.execute("insert into t values (1)")
        assert database.execute("select x from t").fetchone() == (1,)
    buffer = io.StringIO()
    csv.writer(buffer).writerow([1, 2])
    assert buffer.getvalue()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(abs, [-1, -2])) == [1, 2]
    results = queue.Queue()
    worker = threading.Thread(target=lambda: results.put(sum(range(100))))
    worker.start()
    worker.join()
    assert results.get() == 4950
    lock, event = threading.Lock(), threading.Event()
    with lock:
        event.set()
    assert event.wait(0.01)
    time.sleep(0.001)
    poller = select.poll()
    poller.poll(0)
    selectors.DefaultSelector().close()
    read_end, write_end = os.pipe()
    os.write(write_end, b"x")
    assert os.read(read_end, 1) == b"x"
    os.close(read_end)
    os.close(write_end)
    rang = []
    previous = signal.signal(signal.SIGALRM, lambda *_: rang.append(1))
    signal.setitimer(signal.ITIMER_REAL, 0.001)
    deadline = time.monotonic() + 5
    while not rang and time.monotonic() < deadline:
        time.sleep(0.001)  # the handler runs and returns (rt_sigreturn)
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
    assert rang
    grown = bytearray(1 << 20)
    for _ in range(6):
        grown.extend(bytes(len(grown)))  # realloc of a large block: mremap
    assert len(grown) == 64 << 20
    del grown
    assert os.getcwd() and os.path.realpath(here) and os.access(here, os.R_OK)
    logging.getLogger("bot").warning("a log line on stderr")
    warnings.warn("a warning on stderr", stacklevel=1)
    print("printed by the bot", flush=True)
    with contextlib.suppress(OSError):
        open("/etc/passwd").close()  # denied by the sandbox, handled by the bot
    assert traceback.format_stack() and gc.collect() >= 0 and weakref.ref(Memory)
    assert copy.deepcopy([1, [2]]) == [1, [2]] and heapq.nsmallest(1, [3, 1]) == [1]
    assert bisect.bisect([1, 3], 2) == 1 and functools.reduce(operator.add, [1, 2]) == 3
    assert list(itertools.islice(itertools.count(), 2)) == [0, 1] and math.comb(5, 2) == 10
    assert typing.get_type_hints(Memory) is not None and Colour.RED.value == 1


class Bot:
    def __init__(self):
        exercise()
        self.memory = Memory()
        self.random = random.Random(7)

    def start_game(self, info):
        exercise()

    def act(self, observation):
        legal = observation["legal_actions"]
        for action in legal:
            parse_action(action)
            self.memory.seen[action] += 1
        assert callable(determinize)
        return self.random.choice(legal)

    def end_game(self, result):
        exercise()
