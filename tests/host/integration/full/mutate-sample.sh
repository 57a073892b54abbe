# numalab mutate kills a fixed sample of mutants of the interleave and
# collapse-node code with the lab's suites (4node, topology, mempolicy,
# khugepaged, mthp): one of them surviving fails the test.  Then the same --out
# resumes: nothing is built or run again, the reports stay the same.
# The ids are from the mutation runs of issues 18 and 33 (docs/mutate.md); a
# change of the mutated files in the stock recipe changes them, and --ids
# then says which one is gone.  The rest of the fixed sample is in
# mutate-sample-numa-api.sh and mutate-sample-hmat.sh: each part alone fits
# its limit, and `make recheck` runs again only the part that failed.
# 76 mutants at 40-90 s each, two at a time, beside their base runs: about
# 65 min alone, past the default hour.
# check-timeout: 7200
. "$(dirname "$0")/../lib.bash"
make -s guest GUEST_ARCH=x86_64 || fail "guest build failed"
# khugepaged.c: collapse_find_target_node's tie mask == to !=, its max-load test
# if (0); alloc_charge_folio's charge failure forced, the folio not handed back.
IDS=0078f37d3bec,867a293cbefa,7970ae7bb65d,6ef893045c7b
# collapse_file and retract_page_tables (issue 33): the folio copied from
# handed the new one instead; a misaligned mapping's page table retracted;
# MADV_COLLAPSE held to khugepaged's max_ptes_none.
IDS=$IDS,4596aee2cb5b,3afbbc935d3b,5db09fdca077
# MADV_COLLAPSE's collapse_control leaked per call; a shmem THP mapped by PTEs
# answered SCAN_PTE_UFFD_WP (EINVAL) instead of being PMD-mapped; its PMD
# table hung one PUD entry on, 1 GB away.
IDS=$IDS,0583a16a278a,6ff64ef76286,5da01ebecb04
# Its third round: collapse_file leaving the old folios' mapping set (a bad
# page state under check_pages=1) and retaking the xarray lock it holds
# (failslab); a shmem swap entry taken for a folio; nine PTEs cleared per
# page after the copy (RssAnon counted twice); min_free_kbytes left at the
# default with THP on.
IDS=$IDS,1271525f48ee,322a0fd88ba8,f2035ed39883,fbbf16b0b922,d5a02ba14144
# Its fourth round, khugepaged's controls: a NUL read after pages_to_scan's
# newline; scan_sleep_millisecs' write one byte long; khugepaged never
# stopped; MADV_COLLAPSE's EINVAL turned into EISDIR; "no order allowed"
# read as true (a memfd's page cache collapsed under shmem_enabled never);
# khugepaged spinning with nothing to scan; its wait after a failed
# allocation left queued; every task's reclaim counted as khugepaged's.
IDS=$IDS,0183190a6b5e,1c2b682ad41a,030dc6ae9811,0537acb4dc20,1949c3364587,617d5910b039,5128b65cb50b
IDS=$IDS,e2a937c6b854
# khugepaged sleeping on past a new scan_sleep_millisecs (its wait's
# wake-up condition `||` -> `&&`).
IDS=$IDS,93e22db923e6
# Its fifth round: a second mapping's page table never retracted; zone_reclaim
# locality ignored by the anon and the file scan; MADV_COLLAPSE writing to a
# collapse_control it could not allocate; khugepaged reading past
# max_ptes_none.
IDS=$IDS,938c58dca622,280419f69c64,106e41ac016c,00b5bf046565,061973b172e4
# An exited process's mm_slot kept for ever when khugepaged was scanning it;
# a small-size range's isolated pages given back one pfn off (mthp).
IDS=$IDS,b93f4902549e,34a9d13ff501
# A PMD MADV_COLLAPSE installs made dirty, so soft-dirty (FAULT_FLAG_WRITE);
# the zero page given back as a folio; the mTHP walk one order low after a
# collapse (mthp).
IDS=$IDS,38d5442b4b40,51eeafacfd23,4f3d19cc2d2f
# max_ptes_none booting at a value mTHP collapse does not support.
IDS=$IDS,676e7f3a1ac0
# Its sixth round: a failed mTHP collapse's folio never put (a swap PTE in
# the range); the replaced pages left in the swap cache; the swapin trace
# counting one page more than came in.
IDS=$IDS,6d04a6bb01d9,7efff5c81989,677c04c76cfe
# uprobes' unregister never handing the range back to khugepaged
# (collapse_pte_mapped_thp() a no-op: the text stays mapped by PTEs).
IDS=$IDS,8e984be36a0a
# max_ptes_swap_store parsing base 11 (its own default, 64, read back as 70).
IDS=$IDS,a571b2859dd1
# collapse_file's rollback iterating with the new folio (a full tmpfs);
# try_collapse_pte_mapped_thp answering success after giving up (a private
# copy); min_free_kbytes raised to half the pageblock rule; khugepaged taking
# a shmem range past max_ptes_swap.
IDS=$IDS,c2397d801d33,dcfccf9d0c8e,e2f83a6eff5b,e0986bc2f70e
# The rollback putting the wrong folio (a huge page leaked per try); the
# PTE-mapped THP's check against the mapped count after a hole (uprobe).
IDS=$IDS,efbacdb1ac46,f7aa03d96bee
# try_collapse_pte_mapped_thp's step 2 reading one PTE past its table (the
# pte-mapped row's table placed before one whose first entry is present).
IDS=$IDS,c1354e0a51e0
# From the seed-2 sample: collapse_file going on past a page it could not
# take off the LRU (pages moving meanwhile); shmem swap entries counted
# twice (three quarters of a PMD on swap); a gone process's mm never dropped.
IDS=$IDS,0cd1c912c349,1111c17d55fe,1097a13ef3e8
# khugepaged not started with the PMD size's anon control at madvise;
# MADV_NOHUGEPAGE leaving VM_NOHUGEPAGE unset (a THP under THP always).
IDS=$IDS,e64a5c197cd9,ebe74232dd92
# The seed-2 sample's last rows: mlocked shmem freed still unevictable (Bad
# page state); a uffd-wp mapping's page table retracted; a shmem PMD counted
# as one page of a pass; MADV_COLLAPSE of several PMDs collapsing the first
# each time; a failed mTHP collapse leaving a smaller folio isolated (mthp).
IDS=$IDS,5d0b314a4ffa,7b1d95a3a0e3,9a6c83ab1389,f2fdfccf5ef1,8067df4252ff
# Seeds 3 and 4: MADV_COLLAPSE's none limit one short (a range of zero
# pages refused); a failed xarray allocation answered as success.
IDS=$IDS,0e1c4d21480b,2501d1de5140
# Seed 4's last two: KSM's zero pages left mapped in the collapsed range's
# deposited table (ksm_zero_pages); a get_user_pages reference not counted.
IDS=$IDS,821b86638463,93430423a620
# Seed 5: an anonymous PMD range counted as no pages of khugepaged's pass;
# a shmem collapse's THP never put in NR_FILE_PAGES (meminfo's Cached).
IDS=$IDS,33831509500c,4a7fbbc9f380
# Seed 6: the loser of two concurrent MADV_COLLAPSEs answered EINVAL; the THP
# reserve doubled; a shmem collapse traced with a wrong THP; an exited
# process's slot kept until khugepaged's next pass.
IDS=$IDS,0f8f3c3e5f92,2760932b117e,4d35484a1ebb,71b4f90d460f
# Seed 6's last three: khugepaged never started again after a failed
# kthread_run; every new process entered; khugepaged, stopping, keeping the
# slot of a process that exited under its scan.
IDS=$IDS,9f352e575bf4,db2e705e78b3,f2659375b158
# mempolicy.c: the weights' sysfs show and store, get_il_weight + 1, the task
# path's weight refill forced, the bulk paths (weighted: a remainder off by
# one; plain: the per-node split off by one).
IDS=$IDS,00274b22e00d,046d91dd1660,0391994643e4,05d8f5b215b4,015b5132567d,0a2318084026
ARGS=(--kernel stock --file mm/khugepaged.c --file mm/mempolicy.c
      --function collapse_find_target_node --function alloc_charge_folio --function collapse_file
      --function retract_page_tables --function collapse_max_ptes_none --function madvise_collapse
      --function collapse_scan_file --function set_huge_pmd --function file_backed_vma_is_retractable
      --function collapse_scan_abort --function collapse_scan_pmd --function collect_mm_slot
      --function release_pte_pages --function max_order_from_offset
      --function khugepaged_init --function collapse_huge_page --function __collapse_huge_page_swapin
      --function collapse_pte_mapped_thp --function max_ptes_swap_store --function try_collapse_pte_mapped_thp
      --function __collapse_huge_page_copy_succeeded --function __collapse_huge_page_isolate
      --function set_recommended_min_free_kbytes --function check_pmd_still_valid --function __khugepaged_exit
      --function start_stop_khugepaged --function khugepaged_enter_vma --function khugepaged
      --function pages_to_scan_show --function scan_sleep_millisecs_store --function hugepage_enabled
      --function madvise_collapse_errno --function collapse_possible --function khugepaged_wait_work
      --function khugepaged_alloc_sleep --function current_is_khugepaged --function khugepaged_should_wakeup
      --function node_show --function node_store --function anon_hpage_enabled --function hugepage_madvise
      --function get_il_weight
      --function weighted_interleave_nodes --function alloc_pages_bulk_weighted_interleave
      --function alloc_pages_bulk_interleave
      --topo 4node --tests topology,mempolicy,khugepaged,mthp --jobs 2 --ids "$IDS" --out "$SCRATCH/m")

expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
n=$(echo "$IDS" | tr , '\n' | wc -l)
expect_grep "^all +$n +$n +0 " "$SCRATCH/out"
expect_grep "^score 100\.0%: $n killed of $n judged" "$SCRATCH/out"
for f in report.txt report.tap report.json report.html; do
	[ -s "$SCRATCH/m/$f" ] || fail "no $f"
done
expect_grep "^1\.\.$n$" "$SCRATCH/m/report.tap"
[ "$(grep -c '^ok .* # killed$' "$SCRATCH/m/report.tap")" = "$n" ] || fail "not $n killed in report.tap"
cp "$SCRATCH/m/report.txt" "$SCRATCH/first.txt"
# The unmutated tree's selftests, built once, judged the base and the mutants.
[ -x "$SCRATCH/m/base/kselftest/mm/khugepaged" ] || fail "no OUT/base/kselftest/mm/khugepaged"
expect_grep '^khugepaged/kernel selftest mm/khugepaged/collapse_full \(madvise:shmem\)$' "$SCRATCH/m/base/4node/passed"

expect_rc 0 $NUMALAB mutate "${ARGS[@]}"
expect_grep "$n mutants \($n already judged\)" "$SCRATCH/out"
cmp -s "$SCRATCH/first.txt" "$SCRATCH/m/report.txt" || fail "the resumed report differs"
expect_no_qemu
echo "mutate-sample: ok"
