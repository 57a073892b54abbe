/*
 * The host side of kselftest-mm (lab/model/kselftest.h): run_vmtests.sh's test
 * lines become plan lines, and a `make -k` log names each target that did
 * not build with the error that stopped it.
 */
#include "model/kselftest.h"
#include "unit.h"

UNIT_TEST(plan_from_run_vmtests)
{
	const char *script =
		"if [ -x ./gup_test ]; then\n"
		"\tCATEGORY=\"gup_test\" run_test ./gup_test \\\n\t\t-a\nfi\n"
		"CATEGORY=\"hugetlb\" run_test ./hugetlb-mmap\n"
		"# CATEGORY=\"x\" in a comment is no test\n"
		"  CATEGORY=\"userfaultfd\" run_test ${uffd_stress_bin} anon 20 16\n"
		"CATEGORY=\"thp\" run_test ./khugepaged all:file ${SPLIT_HUGE_PAGE_TEST_XFS_PATH}\n"
		"\tCATEGORY=\"mlock\" run_test sudo -u nobody sh -c ./on-fault-limit\n";
	struct buf out = BUF_INIT;

	CHECK_INT(kselftest_plan(script, &out), 5);
	CHECK_STR(buf_str(&out), "gup_test\t./gup_test \\\n"
		  "hugetlb\t./hugetlb-mmap\n"
		  "userfaultfd\t./uffd-stress anon 20 16\n"
		  "thp\t./khugepaged all:file ${SPLIT_HUGE_PAGE_TEST_XFS_PATH}\n"
		  "mlock\tsudo -u nobody sh -c ./on-fault-limit\n");
	buf_free(&out);
}

UNIT_TEST(build_failures_name_target_and_error)
{
	const char *log =
		"  CC       /o/mm/cow\n"
		"/usr/bin/ld: cannot find -lnuma: No such file or directory\n"
		"collect2: error: ld returned 1 exit status\n"
		"make: *** [../lib.mk:222: /o/mm/ksm_tests] Error 1\n"
		"/src/tools/testing/selftests/mm/memfd_secret.c:20:10: fatal error: sys/capability.h: No such file or directory\n"
		"make: *** [../lib.mk:222: /o/mm/memfd_secret] Error 1\n"
		"make: Target 'all' not remade because of errors.\n"
		"make: *** [../lib.mk:222: /o/mm/ksm_tests] Error 1\n";
	struct buf out = BUF_INIT;

	CHECK_INT(kselftest_build_failures(log, &out), 2);
	CHECK_STR(buf_str(&out), "ksm_tests\tld: cannot find -lnuma: No such file or directory\n"
		  "memfd_secret\tmemfd_secret.c:20:10: fatal error: sys/capability.h: No such file or directory\n");
	buf_free(&out);
}

UNIT_MAIN(UNIT_CASE(plan_from_run_vmtests), UNIT_CASE(build_failures_name_target_and_error))
