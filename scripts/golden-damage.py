#!/usr/bin/env python3
"""golden-damage.py OUTDIR: damaged copies of tests/fixtures/kafka/cluster-meta/logdir, one damage
per tree (torn tails, zero tails written and sparse, zeros then data, a CRC flip, corrupt
headers, an oversize claim, a legacy magic, a cut) in one file each of __remote_log_metadata-4,
__cluster_metadata-0 (a segment below the snapshot, the last segment, the newest snapshot) and
a user topic: the inputs of scripts/golden.sh for the .log readers."""
import os, shutil, struct, subprocess, sys

SRC = 'tests/fixtures/kafka/cluster-meta/logdir'
out = sys.argv[1]

def batches(p):
    b = open(p, 'rb').read()
    pos, res = 0, []
    while pos + 12 <= len(b):
        size = struct.unpack('>i', b[pos+8:pos+12])[0] + 12
        res.append((pos, size)); pos += size
    return res

def files(d, ext): return sorted(f for f in os.listdir(d) if f.endswith(ext))
def append(p, data):
    with open(p, 'ab') as f: f.write(data)
def sparse_extend(p, n):
    with open(p, 'r+b') as f: f.truncate(os.path.getsize(p) + n)
def put(p, at, data):
    with open(p, 'r+b') as f: f.seek(at); f.write(data)
def flip(p, at):
    c = open(p, 'rb').read()[at]; put(p, at, bytes([c ^ 0x5a]))
def second(p):
    bs = batches(p); return bs[1] if len(bs) > 1 else bs[0]

DAMAGE = {
    'torn3': lambda p: append(p, b'\x01\x02\x03'),
    'torn40': lambda p: append(p, b'\x00' * 8 + b'\x00\x00\x01\x00' + b'\x07' * 28),
    'tornbatch': lambda p: append(p, b'\x00' * 8 + b'\x00\x00\x01\x00' + b'\x00' * 4 + b'\x02' + b'\x09' * 60),
    'zeros': lambda p: append(p, b'\x00' * 70000),
    'sparse': lambda p: sparse_extend(p, 8 << 20),
    'zerosdata': lambda p: append(p, b'\x00' * 5000 + b'data'),
    'zerosfardata': lambda p: append(p, b'\x00' * (3 << 20) + b'data'),
    'sparsedata': lambda p: (sparse_extend(p, 4 << 20), append(p, b'tail')),
    'crc': lambda p: flip(p, sum(second(p)) - 1),
    'badsize': lambda p: put(p, second(p)[0] + 8, b'\x00\x00\x00\x05'),
    'badmagic': lambda p: put(p, second(p)[0] + 16, b'\x07'),
    'huge': lambda p: put(p, second(p)[0] + 8, struct.pack('>i', 0x7ffffff0)),
    'magic1': lambda p: put(p, second(p)[0] + 16, b'\x01'),
    'cut': lambda p: os.truncate(p, second(p)[0] + 30),
}

def biggest(d): return max((os.path.join(d, f) for f in files(d, '.log')), key=os.path.getsize)
TARGETS = {
    'rlmm': lambda t: biggest(os.path.join(t, '__remote_log_metadata-4')),
    'mlogfirst': lambda t: os.path.join(t, '__cluster_metadata-0', files(os.path.join(t, '__cluster_metadata-0'), '.log')[0]),
    'mloglast': lambda t: os.path.join(t, '__cluster_metadata-0', files(os.path.join(t, '__cluster_metadata-0'), '.log')[-1]),
    'snap': lambda t: os.path.join(t, '__cluster_metadata-0', files(os.path.join(t, '__cluster_metadata-0'), '.checkpoint')[-1]),
    'user': lambda t: os.path.join(t, 'create-config-0', files(os.path.join(t, 'create-config-0'), '.log')[0]),
}
for tn, target in TARGETS.items():
    for dn, dmg in DAMAGE.items():
        dst = os.path.join(out, tn + '-' + dn)
        subprocess.run(["cp", "-a", "--sparse=always", SRC, dst], check=True)
        dmg(target(dst))
