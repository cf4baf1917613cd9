#!/bin/sh
# tests/import_xml.sh - `plumb import hwloc` and `plumb import nccl-topo` on
# public boxes' files (tests/data/import/xml/SOURCES.md): the imported
# scenario's `plumb topo` matrix must be the box's own.
#
#   hwloc-nvidia-dgx2.xml   a DGX-2; its `nvidia-smi topo -m`
#                           (tests/data/import/topom-dgx2-16gpu-nv6.txt, a
#                           DGX-2 of NVIDIA/nccl-tests#78) shows NV6 between
#                           every GPU pair; GPU0-7 on one socket, 8-15 on
#                           the other
#   nccl-*.xml              NCCL topology files: every GPU/NIC pair is
#                           checked against the path type NCCL gives it from
#                           the same file, computed here independently of
#                           plumb (python3, xml.etree): NV<links> for GPUs
#                           joined by <nvlink> (the sum of a GPU's links to
#                           NVSwitches, or its direct links to the other
#                           GPU); PIX when both hang off the same bridge;
#                           PXB below one bridge otherwise; PHB under one
#                           <cpu>; SYS across <cpu> elements
# Rows of the matrix are matched to devices by the bus ids the imported
# scenario records. Ends with "N passed, M failed"; exit 1 on any failure.
LC_ALL=C
export LC_ALL
PLUMB=${PLUMB:-./plumb}
D=tests/data/import/xml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-xml.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# DGX-2 (hwloc). V100 is not in the catalog: the model is given (the
# matrix does not depend on it), and without it the import must refuse.
if $PLUMB import hwloc $D/hwloc-nvidia-dgx2.xml -o "$tmp/refused.yaml" 2>"$tmp/err"; then
	bad "dgx2: imported without --gpu-model though V100 is not in the catalog"
else
	grep -q "10de:1db8" "$tmp/err" && ok || bad "dgx2: refusal does not name the PCI id: $(cat "$tmp/err")"
fi
if $PLUMB import hwloc $D/hwloc-nvidia-dgx2.xml --gpu-model a100-sxm -o "$tmp/dgx2.yaml" &&
   $PLUMB topo "$tmp/dgx2.yaml" --format matrix >"$tmp/dgx2.m"; then
	# the box's own matrix: its GPU rows' GPU cells
	awk '/^GPU[0-9]/ { for (i = 2; i <= 17; i++) print $1, i - 2, $i }' \
		tests/data/import/topom-dgx2-16gpu-nv6.txt >"$tmp/want"
	awk -F'\t' '/^GPU[0-9]/ { for (i = 2; i <= 17; i++) { c = $i; gsub(/ /, "", c); print $1, i - 2, c } }' \
		"$tmp/dgx2.m" >"$tmp/got"
	n=$(grep -cv -F -x -f "$tmp/got" "$tmp/want")
	[ "$(wc -l <"$tmp/want")" -ge 64 ] && [ "$n" -eq 0 ] && ok ||
		bad "dgx2: $n of the box's cells differ: $(grep -v -F -x -f "$tmp/got" "$tmp/want" | head -3)"
	g=$(grep -c '^GPU[0-9]' "$tmp/dgx2.m")
	o=$(awk -F'\t' '/^GPU[0-9]/ { for (i = 2; i <= 17; i++) if ($i != " X " && $i != "NV6") n++ } END { print n + 0 }' "$tmp/dgx2.m")
	[ "$g" -eq 16 ] && [ "$o" -eq 0 ] && ok || bad "dgx2: $g GPU rows, $o GPU cells not NV6"
	s=$(awk -F'\t' '/^GPU[0-9]/ { print $19 }' "$tmp/dgx2.m" | tr -d ' \n')
	[ "$s" = 0000000011111111 ] && ok || bad "dgx2: NUMA affinity '$s'"
else
	bad "dgx2: import or topo failed"
fi

# NCCL topology files, each against NCCL's own reading of it
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found (the NCCL reference needs it)"
else
	for f in $D/nccl-*.xml; do
		b=$(basename "$f" .xml)
		if ! $PLUMB import nccl-topo "$f" --gpu-model h100-sxm -o "$tmp/$b.yaml" ||
		   ! $PLUMB topo "$tmp/$b.yaml" --format matrix >"$tmp/$b.m"; then
			bad "$b: import or topo failed"
			continue
		fi
		if python3 - "$f" "$tmp/$b.yaml" "$tmp/$b.m" >"$tmp/$b.diff" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
src, yml, mat = sys.argv[1:4]
root = ET.parse(src).getroot()
dev = {}          # busid -> (cpu index, [bridge busids from the cpu down], kind)
nv = {}           # GPU busid -> {target busid: count}
def walk(el, cpu, chain):
    for c in el:
        if c.tag != 'pci':
            continue
        bid = c.get('busid').lower()
        cls = int(c.get('class', '0'), 16)
        kids = [k.tag for k in c]
        if (cls >> 8) == 0x0604 or (not c.get('class') and 'pci' in kids):
            walk(c, cpu, chain + [bid])
        elif 'gpu' in kids or (cls >> 8) == 0x0302:
            dev[bid] = (cpu, chain, 'gpu')
            g = c.find('gpu')
            if g is not None:
                nv[bid] = {l.get('target').lower(): int(l.get('count')) for l in g.findall('nvlink')}
        elif 'nic' in kids or (cls >> 16) == 0x02:
            dev[bid] = (cpu, chain, 'nic')
for i, cpu in enumerate(root.findall('cpu')):
    walk(cpu, i, [])
def want(a, b):
    if dev[a][2] == 'gpu' and dev[b][2] == 'gpu' and a in nv:
        if b in nv[a]:
            return 'NV%d' % nv[a][b]
        sw = sum(n for t, n in nv[a].items() if t not in dev)
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
# matrix row names -> bus ids, from the imported scenario
bdf = {}
for line in open(yml):
    m = re.search(r'id: (gpu|nic)(\d+),.*bdf: "([^"]+)"', line)
    if m:
        bdf[m.group(1).upper() + m.group(2)] = m.group(3).lower()
rows = [l.rstrip('\n').split('\t') for l in open(mat)]
head = [h.strip() for h in rows[0]]
bad = n = 0
for r in rows[1:]:
    name = r[0].strip()
    if name not in bdf:
        continue
    for j, col in enumerate(head[1:], 1):
        if col not in bdf or col == name:
            continue
        n += 1
        w, g = want(bdf[name], bdf[col]), r[j].strip()
        if w != g:
            bad += 1
            if bad <= 5:
                print('%s %s (%s, %s): plumb %s, NCCL %s' % (name, col, bdf[name], bdf[col], g, w))
if len(bdf) != len(dev):
    print('%d devices in the file, %d in the scenario' % (len(dev), len(bdf)))
    bad += 1
print('%d cells, %d differ' % (n, bad))
sys.exit(1 if bad or n == 0 else 0)
EOF
		then ok
		else bad "$b: $(cat "$tmp/$b.diff")"
		fi
	done
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
