"""An addition to the anchor harness (benches/tflm-anchor): like cmp.py, but the wheel runs the same number of invokes as the image (REPS, default 3;
state carried, as on the target) and outputs are compared as raw bytes (main.cc prints every output byte as int8),
so float/int16/int32 outputs and stateful models are checked too. Prints, per model, equal/not and for float outputs
the max abs difference. usage: $PY cmp3.py LOG   (MODELS_DIR in the environment)"""
import json, os, re, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cmp import model_path
REPS = int(os.environ.get('REPS', 3))


def worker(path, reps):
    import numpy as np
    from gen import rand_inputs, model_inputs
    from tflite_micro.python.tflite_micro import runtime
    it = runtime.Interpreter.from_file(path, arena_size=8 * 1024 * 1024)
    xs = rand_inputs(model_inputs(open(path, 'rb').read()))
    for r in range(reps):
        for i, x in enumerate(xs):
            it.set_input(x, i)
        it.invoke()
    outs, j = [], 0
    while True:
        try:
            a = np.ascontiguousarray(it.get_output(j))
        except Exception:
            break
        outs.append({'bytes': np.frombuffer(a.tobytes(), np.int8).tolist(), 'dtype': str(a.dtype)})
        j += 1
    print('JSON' + json.dumps(outs), flush=True)


def main(log):
    import numpy as np
    for blk in open(log).read().split('== ')[1:]:
        m = blk.split()[0]
        outs = [list(map(int, l.split(':')[1].split())) for l in blk.splitlines() if l.startswith('output ')]
        ninv = len(re.findall(r'Invoke\[\d\] ticks', blk))
        p = subprocess.run([sys.executable, __file__, 'W', model_path(m), str(ninv)], capture_output=True, text=True)
        js = [l[4:] for l in p.stdout.splitlines() if l.startswith('JSON')]
        w = json.loads(js[-1]) if js else None
        if not w or not outs:
            print(m, 'invokes', ninv, 'NOT CHECKED', p.stderr[-300:]); continue
        eq = len(w) == len(outs) and all(o == x['bytes'] for o, x in zip(outs, w))
        extra = ''
        for o, x in zip(outs, w):
            if x['dtype'].startswith('float') and not eq:
                a = np.frombuffer(np.array(o, np.int8).tobytes(), x['dtype']); b = np.frombuffer(np.array(x['bytes'], np.int8).tobytes(), x['dtype'])
                extra += f" max_abs_diff={np.max(np.abs(a - b)):.3g} max|wheel|={np.max(np.abs(b)):.3g} n_diff={int(np.sum(a != b))}/{a.size}"
        print(m, 'invokes', ninv, 'dtypes', [x['dtype'] for x in w], 'bytes_equal_wheel_after_same_invokes', eq, extra)


if __name__ == '__main__':
    if sys.argv[1] == 'W':
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1])
