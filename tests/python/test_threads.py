# Threads calling the module at once (the GIL is released during the arithmetic) get exactly the
# results of sequential calls.
import threading
import time

import numpy as np

import qparity


def test_concurrent_calls_equal_sequential(model_path):
    rng = np.random.default_rng(3)
    jobs = []
    for i in range(8):
        x = rng.integers(-128, 128, (1, 24, 24, 16)).astype(np.int8)
        w = rng.integers(-127, 128, (16, 3, 3, 16)).astype(np.int8)
        preset = ["tflite-reference", "xnnpack-fp32", "npu-he-q15-sat24", "ruy-arm"][i % 4]
        jobs.append((x, w, preset))
    kw = dict(padding="SAME", input_scale=0.02, filter_scales=0.01, output_scale=0.03)
    sequential = [qparity.conv2d(x, w, preset=p, **kw) for x, w, p in jobs]
    acc = rng.integers(-2 ** 31, 2 ** 31, 200000, dtype=np.int64).astype(np.int32)
    req_sequential = qparity.requantize(acc, scale=0.00123, preset="xnnpack-rndnu")
    model = qparity.Model(model_path)
    run_sequential = model.run(preset="npu-verisilicon")

    results = {}
    errors = []
    start = threading.Barrier(len(jobs) * 2 + 1)

    def conv(i):
        try:
            start.wait()
            for _ in range(3):
                out = qparity.conv2d(jobs[i][0], jobs[i][1], preset=jobs[i][2], **kw)
                results.setdefault(("conv", i), []).append(out)
        except Exception as e:  # collected: an exception in a thread would not fail the test
            errors.append(e)

    def other(i):
        try:
            start.wait()
            for _ in range(3):
                if i % 2:
                    results.setdefault(("req", i), []).append(qparity.requantize(acc, scale=0.00123, preset="xnnpack-rndnu"))
                else:
                    results.setdefault(("run", i), []).append(model.run(preset="npu-verisilicon"))
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=conv, args=(i,)) for i in range(len(jobs))]
    threads += [threading.Thread(target=other, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    start.wait()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(len(jobs)):
        assert len(results[("conv", i)]) == 3
        for out in results[("conv", i)]:
            np.testing.assert_array_equal(out, sequential[i])
    for (kind, i), outs in results.items():
        if kind == "req":
            for out in outs:
                np.testing.assert_array_equal(out, req_sequential)
        elif kind == "run":
            for out in outs:
                assert out.keys() == run_sequential.keys()
                for name in out:
                    np.testing.assert_array_equal(out[name], run_sequential[name])


def test_gil_released_during_the_arithmetic():
    # A Python thread counts while the main thread is inside one long conv2d (the header-only
    # reference: slow enough). With the GIL held for the call it could count only in the
    # interpreter's switch intervals around it (5 ms each); released, through the call. Its rate
    # is measured first, while the main thread sleeps, under the same machine load.
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, (2, 96, 96, 64)).astype(np.int8)
    w = rng.integers(-127, 128, (64, 3, 3, 64)).astype(np.int8)
    kw = dict(padding="SAME", input_scale=0.02, filter_scales=0.01, output_scale=0.03, reference=True)
    counter = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            counter[0] += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        c0, t0 = counter[0], time.perf_counter()
        time.sleep(0.2)
        rate = (counter[0] - c0) / (time.perf_counter() - t0)
        c1, t1 = counter[0], time.perf_counter()
        qparity.conv2d(x, w, **kw)
        moved, duration = counter[0] - c1, time.perf_counter() - t1
    finally:
        stop.set()
        t.join()
    assert duration > 0.2, f"the call took {duration:.3f} s: too short to tell"
    assert moved > 0.25 * rate * duration, (
        f"the counter moved {moved} times during a {duration:.2f} s call (alone: {rate:.0f}/s): the GIL was held")
