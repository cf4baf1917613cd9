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
#   the other hwloc-*.xml and nccl-*.xml files: every GPU/NIC pair against
#                           the path type the file itself implies (NVLink
#                           from the file's NVLink data, PCIe from its tree),
#                           computed by tests/import_xml_ref.py (python3)
#                           independently of plumb; the rules are in its
#                           header
# Rows of the matrix are matched to devices by the bus ids the imported
# scenario records. Ends with "N passed, M failed"; exit 1 on any failure.
. "$(dirname "$0")/lib.sh"
begin_tests xml
D=tests/data/import/xml

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

# A crafted NCCL file (not a box): one PCI function with two <net> ports,
# as NCCL writes a dual-port ConnectX (NVIDIA/nccl#1505 shows mlx5_4 and
# mlx5_5 so): both ports must become NICs, PIX to each other
cat >"$tmp/dual.xml" <<'EOF'
<system version="1">
  <cpu numaid="0" vendor="AuthenticAMD">
    <pci busid="0000:07:00.0" class="0x030200" vendor="0x10de" device="0x20b2" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="80" rank="0" gdr="1"/>
    </pci>
    <pci busid="0000:61:00.0" class="0x020700" vendor="0x15b3" device="0x101b" link_speed="16.0 GT/s PCIe" link_width="16">
      <nic>
        <net name="mlx5_4" dev="4" speed="200000" port="1" gdr="1"/>
        <net name="mlx5_5" dev="5" speed="100000" port="2" gdr="1"/>
      </nic>
    </pci>
  </cpu>
</system>
EOF
if $PLUMB import nccl-topo "$tmp/dual.xml" -o "$tmp/dual.yaml" &&
   $PLUMB topo "$tmp/dual.yaml" --format matrix >"$tmp/dual.m"; then
	r=$(awk -F'\t' '/^NIC0/ { print $3 "/" $4 } /^GPU0/ { print $3 "/" $4 }' "$tmp/dual.m" | tr -d ' \n')
	[ "$r" = PHB/PHBX/PIX ] && ok || bad "dual-port NIC: rows GPU0, NIC0 read '$r'"
else
	bad "dual-port NIC: import or topo failed"
fi

# A crafted hwloc file (not a box): two H100 (10de:2330, in the catalog)
# on root ports of one host bridge with 18 NVLink 4 links between them,
# given as a matrix of one object type (<distances2 type="OSDev"
# indexing="gp">, bare gp indexes): NV18 between them
cat >"$tmp/pair.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<topology version="3.0">
  <object type="Machine" os_index="0" cpuset="0x0000000f" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x0000000f" gp_index="2">
      <info name="CPUVendor" value="AuthenticAMD"/>
      <object type="NUMANode" os_index="0" cpuset="0x0000000f" gp_index="3"/>
      <object type="Bridge" gp_index="10" bridge_type="0-1" depth="0" bridge_pci="0000:[00-02]">
        <object type="Bridge" gp_index="11" bridge_type="1-1" depth="1" bridge_pci="0000:[01-01]" pci_busid="0000:00:01.1" pci_type="0604 [1022:1483] [0000:0000] 00 00">
          <object type="PCIDev" gp_index="12" pci_busid="0000:01:00.0" pci_type="0302 [10de:2330] [10de:16c1] a1 00">
            <object type="OSDev" gp_index="20" name="nvml0" osdev_type="12"/>
          </object>
        </object>
        <object type="Bridge" gp_index="13" bridge_type="1-1" depth="1" bridge_pci="0000:[02-02]" pci_busid="0000:00:01.2" pci_type="0604 [1022:1483] [0000:0000] 00 00">
          <object type="PCIDev" gp_index="14" pci_busid="0000:02:00.0" pci_type="0302 [10de:2330] [10de:16c1] a1 00">
            <object type="OSDev" gp_index="21" name="nvml1" osdev_type="12"/>
          </object>
        </object>
      </object>
    </object>
  </object>
  <distances2 type="OSDev" nbobjs="2" kind="25" name="NVLinkBandwidth" indexing="gp">
    <indexes length="6">20 21 </indexes>
    <u64values length="32">1000000 450000 450000 1000000 </u64values>
  </distances2>
</topology>
EOF
if $PLUMB import hwloc "$tmp/pair.xml" -o "$tmp/pair.yaml" &&
   $PLUMB topo "$tmp/pair.yaml" --format matrix >"$tmp/pair.m"; then
	r=$(awk -F'\t' '/^GPU0/ { print $3 }' "$tmp/pair.m" | tr -d ' ')
	[ "$r" = NV18 ] && ok || bad "hwloc distances2 of one type: GPU0-GPU1 '$r', not NV18"
else
	bad "hwloc distances2 of one type: import or topo failed"
fi

# The other files: every GPU/NIC pair against the path type the file
# itself implies, read independently of plumb (tests/import_xml_ref.py)
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found (tests/import_xml_ref.py needs it)"
else
	for f in $D/hwloc-*.xml $D/nccl-*.xml; do
		b=$(basename "$f" .xml)
		case $b in
		hwloc-nvidia-dgx2) continue ;;
		hwloc-*) kind=hwloc ;;
		*) kind=nccl-topo ;;
		esac
		if ! $PLUMB import $kind "$f" --gpu-model a100-sxm -o "$tmp/$b.yaml" ||
		   ! $PLUMB topo "$tmp/$b.yaml" --format matrix >"$tmp/$b.m"; then
			bad "$b: import or topo failed"
			continue
		fi
		if python3 tests/import_xml_ref.py ${kind%-topo} "$f" "$tmp/$b.yaml" "$tmp/$b.m" >"$tmp/$b.diff"; then
			ok
			echo "$b: $(tail -1 "$tmp/$b.diff")"
		else
			bad "$b: $(cat "$tmp/$b.diff")"
		fi
	done
fi
end_tests
