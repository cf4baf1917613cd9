#!/usr/bin/env python3
"""tests/import_xml_ref.py - the reference for tests/import_xml.sh: reads an
hwloc or NCCL topology XML on its own (xml.etree, nothing of plumb) and
checks every GPU/NIC cell of `plumb topo --format matrix` against the path
type the file implies.

    python3 tests/import_xml_ref.py hwloc|nccl FILE.xml SCENARIO.yaml MATRIX

Matrix rows are matched to the file's devices by the bus ids the imported
scenario records (`bdf:`). Exit 0 when every cell matches, 1 otherwise (the
first differences and the count are printed).

NCCL (the path types NCCL gives the pairs of that file): NV<n> for GPUs
joined by <nvlink> (n = the GPU's links to NVSwitches, or its direct links
to the other GPU); PIX when both hang off the same <pci> bridge; PXB below
one bridge otherwise; PHB under one <cpu>; SYS across <cpu> elements.

hwloc (what `nvidia-smi topo -m` shows for that tree): NV<n> from hwloc's
NVLinkBandwidth matrix, n = bandwidth / the per-link rate hwloc adds (20000
MB/s for NVLink 1, P100; 25000 for NVLink 2-4; hwloc/topology-nvml.c); SYS
across Packages; NODE across host bridges of one Package; PHB across root
ports of one host bridge; PIX below one bridge (the functions of one card)
or within one PCIe switch (an upstream-port bridge and its downstream
ports); PXB across switches below a root port.
"""
import re
import sys
import xml.etree.ElementTree as ET


def nccl_devices(root):
    dev, nvl = {}, {}

    def walk(el, cpu, chain):
        for c in el.findall('pci'):
            bid = c.get('busid').lower()
            cls = int(c.get('class', '0'), 16)
            kids = [k.tag for k in c]
            if (cls >> 8) == 0x0604 or (not c.get('class') and 'pci' in kids):
                walk(c, cpu, chain + [bid])
            elif 'gpu' in kids or (cls >> 8) == 0x0302:
                dev[bid] = (cpu, chain, 'gpu')
                g = c.find('gpu')
                if g is not None:
                    nvl[bid] = {}
                    for l in g.findall('nvlink'):
                        nvl[bid][l.get('target').lower()] = int(l.get('count'))
            elif 'nic' in kids or (cls >> 16) == 0x02:
                dev[bid] = (cpu, chain, 'nic')

    for i, cpu in enumerate(root.findall('cpu')):
        walk(cpu, i, [])

    def want(a, b):
        if dev[a][2] == 'gpu' and dev[b][2] == 'gpu' and a in nvl:
            if b in nvl[a]:
                return 'NV%d' % nvl[a][b]
            sw = sum(n for t, n in nvl[a].items() if t not in dev)
            if sw:
                return 'NV%d' % sw
        (ca, pa, _), (cb, pb, _) = dev[a], dev[b]
        if ca != cb:
            return 'SYS'
        if pa and pb and pa[-1] == pb[-1]:
            return 'PIX'
        if pa and pb and pa[0] == pb[0]:
            return 'PXB'
        return 'PHB'
    return dev, want


def hwloc_devices(root):
    dev = {}   # busid -> [package, host bridge, bridges below it, kind, names, model]

    def walk(el, pkg, hb, chain):
        for c in el.findall('object'):
            t = c.get('type')
            if t == 'Package':
                walk(c, c.get('gp_index'), hb, chain)
            elif t == 'Bridge':
                if c.get('bridge_type', '').startswith('0-'):
                    walk(c, pkg, c.get('gp_index'), [])
                else:
                    walk(c, pkg, hb, chain + [c.get('gp_index')])
            elif t == 'PCIDev':
                m = re.match(r'([0-9a-f]{4}) \[([0-9a-f]{4}):', c.get('pci_type', ''))
                cls, ven = int(m.group(1), 16), int(m.group(2), 16)
                gpu = ((ven == 0x10de and cls in (0x300, 0x302)) or
                       (ven == 0x1002 and cls in (0x302, 0x380, 0x1200)))
                if not gpu and cls >> 8 != 0x02:
                    continue
                osd = [o for o in c.findall('object') if o.get('type') == 'OSDev']
                names = ['PCIDev:' + c.get('gp_index')] + ['OSDev:' + o.get('gp_index') for o in osd]
                model = ' '.join(i.get('value') for o in osd for i in o.findall('info')
                                 if i.get('name') == 'GPUModel')
                dev[c.get('pci_busid').lower()] = (pkg, hb, chain, 'gpu' if gpu else 'nic',
                                                   names, model)
            else:
                walk(c, pkg, hb, chain)

    walk(root, None, None, [])
    per = 20000 if any('P100' in v[5] for v in dev.values()) else 25000
    name = {nm: b for b, v in dev.items() for nm in v[4]}
    nvl = {}
    for d in root.iter('distances2hetero'):
        if d.get('name') != 'NVLinkBandwidth':
            continue
        idx = ' '.join(e.text for e in d.findall('indexes')).split()
        val = [int(v) for v in ' '.join(e.text for e in d.findall('u64values')).split()]
        n = len(idx)
        for i in range(n):
            if idx[i] not in name:
                continue
            for j in range(n):
                if i == j or not val[i * n + j]:
                    continue
                t = name.get(idx[j], 'switch' if 'Package' not in idx[j] else None)
                if t:
                    row = nvl.setdefault(name[idx[i]], {})
                    row[t] = row.get(t, 0) + val[i * n + j] // per

    def switch_of(c):
        # c[0] is the root port; below it upstream (odd index) and
        # downstream (even index) ports alternate
        if len(c) < 2:
            return None
        return c[-2] if (len(c) - 1) % 2 == 0 else c[-1]

    def want(a, b):
        if a in nvl and dev[b][3] == 'gpu':
            if b in nvl[a]:
                return 'NV%d' % nvl[a][b]
            if 'switch' in nvl[a] and b in nvl:
                return 'NV%d' % nvl[a]['switch']
        (pa, ha, ca), (pb, hb, cb) = dev[a][:3], dev[b][:3]
        if pa != pb:
            return 'SYS'
        if ha != hb:
            return 'NODE'
        if not ca or not cb or ca[0] != cb[0]:
            return 'PHB'
        if ca[-1] == cb[-1]:
            return 'PIX'            # functions of one card, or one switch port
        sa = switch_of(ca)
        return 'PIX' if sa is not None and sa == switch_of(cb) else 'PXB'
    return dev, want


def main():
    kind, src, yml, mat = sys.argv[1:5]
    root = ET.parse(src).getroot()
    dev, want = nccl_devices(root) if kind == 'nccl' else hwloc_devices(root)
    bdf = {}
    for line in open(yml):
        m = re.search(r'id: (gpu|nic)(\d+),.*bdf: "([^"]+)"', line)
        if m:
            bdf[m.group(1).upper() + m.group(2)] = m.group(3).lower()
    rows = [l.rstrip('\n').split('\t') for l in open(mat)]
    head = [h.strip() for h in rows[0]]
    bad = n = 0
    for r in rows[1:]:
        nm = r[0].strip()
        if nm not in bdf:
            continue
        for j, col in enumerate(head[1:], 1):
            if col not in bdf or col == nm:
                continue
            n += 1
            w, g = want(bdf[nm], bdf[col]), r[j].strip()
            if w != g:
                bad += 1
                if bad <= 5:
                    print('%s %s (%s, %s): plumb %s, the file %s' % (nm, col, bdf[nm], bdf[col], g, w))
    if len(bdf) != len(dev):
        print('%d devices in the file, %d in the scenario' % (len(dev), len(bdf)))
        bad += 1
    print('%d cells, %d differ' % (n, bad))
    sys.exit(1 if bad or n == 0 else 0)


main()
