# numalab — see README.md.  `make` builds ./numalab and the guest binaries.
CC      ?= cc
CSTD     = -std=c11 -D_GNU_SOURCE
WARN     = -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
# Objects list their own headers (-MMD -MP): a changed header rebuilds only
# the objects that include it.
DEPFLAGS = -MMD -MP
BUILD    = build
LAB_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) $(DEPFLAGS) -Ilab -I$(BUILD)
# Optional libraries: the libvirt backend (lab/boot/vm_libvirt.c, libvirt-dev) and
# disk images (lab/boot/disk.c, libguestfs-dev): their headers.  `make setup` installs both, but
# numalab must build without them first (setup is numalab).  Which of them
# this build has is $(BUILD)/config.h, rewritten only when the answer changes, so
# exactly the objects that include it are rebuilt once a library arrives.
# `make HAVE_LIBVIRT=no HAVE_GUESTFS=no` builds without them on any host.
HAVE_LIBVIRT ?= $(shell pkg-config --exists libvirt 2>/dev/null && echo yes || echo no)
HAVE_GUESTFS ?= $(shell pkg-config --exists libguestfs 2>/dev/null && echo yes || echo no)
# Both are loaded when first used (lab/base/dynlib.h), so nothing links them.
# lab/analysis/stats.c: sqrt, exp, log, lgamma; lab/base/dynlib.c: dlopen.
LAB_LIBS = -lm -ldl
CONFIG_H = $(BUILD)/config.h
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LAB_SRC  = $(wildcard lab/*/*.c)
LAB_OBJ  = $(LAB_SRC:%.c=$(BUILD)/host/%.o)
LAB_SAN_OBJ = $(LAB_SRC:%.c=$(BUILD)/san/%.o)

# Guest side (docs/architecture.md): a static /init (images/init/) and one
# static binary per suite of tests/guest/suites/, for the arch of TOPO
# (LoongArch cross-built inside the toolroot, docs/toolroot.md).  A suite is
# a folder there, nothing else is: host tests live in tests/host/.
TOPO     = 2node
TOPO_FILE = $(firstword $(wildcard $(TOPO) topologies/$(TOPO).topo))
GUEST_ARCH ?= $(or $(if $(TOPO_FILE),$(shell sed -n 's/^arch[[:space:]]*//p' $(TOPO_FILE))),x86_64)
GUEST_CC_x86_64 = gcc
GUEST_CC_loongarch64 = ./numalab toolroot-exec --auto -- loongarch64-linux-gnu-gcc
GUEST_DEPS_loongarch64 = numalab
GUEST_CC = $(GUEST_CC_$(GUEST_ARCH))
GUEST_CFLAGS = $(CSTD) -Wall -Wextra -Werror -O2 -static -Ilab -Itests/guest/lib
GUEST_SUITES = $(notdir $(patsubst %/,%,$(wildcard tests/guest/suites/*/)))
GB       = $(BUILD)/guest/$(GUEST_ARCH)
GUEST_BINS = $(GB)/init $(GUEST_SUITES:%=$(GB)/tests/%)
GUEST_LIB  = $(wildcard tests/guest/lib/*.c) lab/model/topology.c lab/model/topology_capture.c lab/base/lines.c
GUEST_LIB_H = $(wildcard tests/guest/lib/*.h)
# /init takes from the guest library only its file and id-list readers and
# the child rule (child.h: a test's session killed whole); from the lab,
# the reader of LTP's result lines (format ltp suites, model/ltp.h).
# The serial console's TAP frames and the KTAP walk behind LAVA's test cases
# (images/init/serial.c) are the host's own modules, linked in.
INIT_SRC = $(wildcard images/init/*.c) tests/guest/lib/sys.c tests/guest/lib/child.c \
	   lab/results/serialtap.c lab/results/tap.c lab/base/util.c lab/base/progress.c lab/model/ltp.c

UNIT_SRC = $(wildcard tests/host/unit/test_*.c)
# Guest-side code the host unit tests check too (the weighted-interleave
# model and the mempolicy suite's replay of a step trace against it, the
# case harness and its KTAP counts, /init's reading of skip reasons).
UNIT_LIB = tests/guest/lib/wi_model.c tests/guest/lib/ktap.c tests/guest/lib/harness.c tests/guest/lib/child.c \
	   tests/guest/suites/mempolicy/replay.c images/init/skip_reason.c
# Objects of their own, so a unit test's -MMD list names only headers.
UNIT_LIB_OBJ = $(UNIT_LIB:%.c=$(BUILD)/host/%.o)
UNIT_LIB_SAN_OBJ = $(UNIT_LIB:%.c=$(BUILD)/san/%.o)
UNIT_BIN = $(UNIT_SRC:tests/host/unit/%.c=$(BUILD)/unit/%)
UNIT_SAN = $(UNIT_SRC:tests/host/unit/%.c=$(BUILD)/unit-san/%)

# ---- make variables -> numalab options: one rule for every lab-* target ----
# A variable is its option's long name in capitals, '-' as '_': TOPO is
# --topo, HOST_NODES --host-nodes, TESTS_DIR --tests-dir.  A set variable
# passes its option once, its value quoted (spaces stay in it: TEST='s:a b');
# the options of a target's *_LISTS repeat, once per word (PATCH='a b' is
# --patch a --patch b); those of its *_FLAGS are flags (PREALLOC=1).
# Not options: the operands MATRIX, K, IMAGE, A, B, lab-try's PATCH; CMD (after --) and
# COMPARE_ARGS go as written.  tests/integration/make-options.sh checks
# that each name below is an option of its command, and that lab-run knows
# every option of numalab run.
UPPER = $(subst a,A,$(subst b,B,$(subst c,C,$(subst d,D,$(subst e,E,$(subst f,F,$(subst g,G,$(subst h,H,$(subst \
	i,I,$(subst j,J,$(subst k,K,$(subst l,L,$(subst m,M,$(subst n,N,$(subst o,O,$(subst p,P,$(subst q,Q,$(subst \
	r,R,$(subst s,S,$(subst t,T,$(subst u,U,$(subst v,V,$(subst w,W,$(subst x,X,$(subst y,Y,$(subst z,Z,$(1)))))))))))))))))))))))))))
option_var = $(call UPPER,$(subst -,_,$(1)))
# A target's variables are set on make's command line, or are the defaults
# this Makefile gives them (TOPO = 2node: make's command line overrides it,
# the environment does not), never inherited from the environment: ARCH,
# OUT, TEST, JOBS, KERNEL are names a shell may export for something else.
# $(call given,VAR): VAR's value unless it came from the environment.
given = $(if $(filter environment,$(origin $(1))),,$($(1)))
# $(call options,SINGLE...,LIST...,FLAG...): the options whose variables are set.
options = $(strip $(foreach o,$(1),$(if $(call given,$(call option_var,$(o))),--$(o) "$(call given,$(call option_var,$(o)))")) \
	  $(foreach o,$(2),$(foreach v,$(call given,$(call option_var,$(o))),--$(o) $(v))) \
	  $(foreach o,$(3),$(if $(filter-out 0 no,$(call given,$(call option_var,$(o)))),--$(o))))

LAVA_OPTIONS = lava lava-device-type lava-artifacts
RUN_OPTIONS = topo kernel tests timeout out accel append guest-file backend uri host-nodes disk tap-flat junit kcidb \
	      tap-channel $(LAVA_OPTIONS)
RUN_LISTS   = patch rw tests-dir
RUN_FLAGS   = prealloc quiet
# shell: run's options but those it has no use for (numalab shell --help).
SHELL_OPTIONS = $(filter-out timeout tap-flat junit kcidb tap-channel $(LAVA_OPTIONS),$(RUN_OPTIONS))
SHELL_FLAGS   = prealloc
BISECT_OPTIONS = ksrc good bad topo test recipe timeout out metric repeat threshold alpha
MATRIX_OPTIONS = jobs out shard kcidb $(LAVA_OPTIONS)
MATRIX_FLAGS   = quiet dry-run
TRY_OPTIONS    = base topos suites repeat jobs out expect accel threshold alpha shard kcidb $(LAVA_OPTIONS)
TRY_FLAGS      = report
KERNEL_OPTIONS = arch
KERNEL_LISTS   = patch
IMAGE_OPTIONS  = out accel
MUTATE_OPTIONS = kernel topo tests jobs limit sample seed ids timeout out equivalents accel
MUTATE_LISTS   = patch file function
MUTATE_FLAGS   = patch-lines dry-run

RUN_ARGS    = $(call options,$(RUN_OPTIONS),$(RUN_LISTS),$(RUN_FLAGS))
SHELL_ARGS  = $(call options,$(SHELL_OPTIONS),$(RUN_LISTS),$(SHELL_FLAGS))
BISECT_ARGS = $(call options,$(BISECT_OPTIONS))
MATRIX_ARGS = $(MATRIX) $(call options,$(MATRIX_OPTIONS),,$(MATRIX_FLAGS))
TRY_ARGS    = $(PATCH) $(call options,$(TRY_OPTIONS),,$(TRY_FLAGS))
MUTATE_ARGS = $(call options,$(MUTATE_OPTIONS),$(MUTATE_LISTS),$(MUTATE_FLAGS))
# A command for the guest (docs/byo.md): `make lab-run TOPO=2node CMD='numactl --hardware'`.
CMD      =
# The operands: lab-compare's A and B, lab-try's PATCH, COMPARE_ARGS.
A        =
B        =
PATCH    =
COMPARE_ARGS =

# BACKEND=libvirt without a URI: a private libvirtd for the run (tests/host/libvirtd).
LIBVIRT_WITH = $(if $(filter libvirt,$(call given,BACKEND)),$(if $(call given,URI)$(LIBVIRT_DEFAULT_URI),,tests/host/libvirtd with /run/numalab-libvirt))

.PHONY: FORCE all guest setup lab-run lab-shell lab-bisect lab-compare lab-try kernel image mutate check check-full recheck bench fuzz clean
.DELETE_ON_ERROR:
# Objects are shared by many targets: never delete them as intermediates.
.SECONDARY:

all: numalab guest

numalab: $(LAB_OBJ) $(BUILD)/host/runner.o
	$(CC) $(CFLAGS) -o $@ $^ $(LAB_LIBS)

$(BUILD)/host/%.o: %.c | $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) -c -o $@ $<

# Always re-asked, replaced only when it differs (FORCE without a rebuild).
$(CONFIG_H): FORCE
	@mkdir -p $(dir $@)
	@printf '/* Generated by the Makefile: the optional libraries this build links. */\n#define NUMALAB_HAVE_LIBVIRT %d\n#define NUMALAB_HAVE_GUESTFS %d\n' \
		$(if $(filter yes,$(HAVE_LIBVIRT)),1,0) $(if $(filter yes,$(HAVE_GUESTFS)),1,0) >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:

# `numalab --version`: the tree's `git describe` (a commit id while there are
# no tags; "unknown" outside git), rewritten only when it changes.  A header
# of its own, included by runner.c alone: a new commit rebuilds one object,
# not every one that reads config.h.
VERSION_H = $(BUILD)/version.h
$(VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@printf '/* Generated by the Makefile: `git describe` of the tree built. */\n#define NUMALAB_VERSION "%s"\n' \
		"$$(git describe --tags --always --dirty 2>/dev/null || echo unknown)" >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/host/runner.o: | $(VERSION_H)

$(BUILD)/san/%.o: %.c | $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(SAN) -c -o $@ $<

guest: $(GUEST_BINS)

$(GB)/init: $(INIT_SRC) images/init/init.h $(GUEST_LIB_H) lab/results/serialtap.h lab/results/tap.h lab/base/util.h \
	    lab/model/ltp.h | $(GUEST_DEPS_$(GUEST_ARCH))
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -Iimages/init -o $@ $(INIT_SRC)

$(GB)/tests/%: tests/guest/suites/%/*.c $(GUEST_LIB) $(GUEST_LIB_H) lab/model/topology.h lab/model/topology_capture.h lab/base/lines.h | $(GUEST_DEPS_$(GUEST_ARCH))
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $(wildcard tests/guest/suites/$*/*.c) $(GUEST_LIB)

# Host packages and the pinned kernel; idempotent.
setup: numalab
	./numalab setup

# Setup may just have installed an optional library (libvirt, libguestfs):
# the sub-make asks again and rebuilds numalab with it.
lab-run: numalab
	@./numalab setup --quiet --arch $(GUEST_ARCH)
	@$(MAKE) -s numalab guest GUEST_ARCH=$(GUEST_ARCH)
	$(LIBVIRT_WITH) ./numalab run $(RUN_ARGS) $(if $(CMD),-- $(CMD))

# The guest's console with a shell on this terminal (docs/byo.md): `make lab-shell TOPO=4node`.
lab-shell: numalab
	@./numalab setup --quiet --arch $(GUEST_ARCH)
	@$(MAKE) -s numalab guest GUEST_ARCH=$(GUEST_ARCH)
	./numalab shell $(SHELL_ARGS)

# Find the commit of KSRC between GOOD and BAD that breaks TEST, or (METRIC=,
# THRESHOLD=, REPEAT=) that regresses a metric of it (docs/bisect.md).
RECIPE = stock
lab-bisect: numalab
	@./numalab setup --quiet --arch $(GUEST_ARCH)
	@$(MAKE) -s numalab guest GUEST_ARCH=$(GUEST_ARCH)
	./numalab bisect $(BISECT_ARGS)

# Single-line mutants of kernel functions, each built, booted and tested (docs/mutate.md):
# `make mutate KERNEL=stock FILE=mm/mempolicy.c FUNCTION='interleave_nodes interleave_nid'
#  TOPO=4node TESTS=topology,mempolicy JOBS=2 LIMIT=50`.
mutate: numalab
	@./numalab setup --quiet --arch $(GUEST_ARCH)
	@$(MAKE) -s numalab guest GUEST_ARCH=$(GUEST_ARCH)
	./numalab mutate $(MUTATE_ARGS)

# Compare two result trees (run or matrix directories): `make lab-compare A=DIR B=DIR`.
lab-compare: numalab
	./numalab compare $(COMPARE_ARGS) $(A) $(B)

# A test matrix (docs/matrix.md): `make lab-matrix MATRIX=nightly JOBS=2 OUT=dir SHARD=0/4`.
.PHONY: lab-matrix
MATRIX = smoke
lab-matrix: numalab
	@for a in $$(./numalab matrix $(MATRIX) --arches $(call options,shard)); do \
		./numalab setup --quiet --arch $$a && $(MAKE) -s numalab guest GUEST_ARCH=$$a || exit; done
	./numalab matrix $(MATRIX_ARGS)

# A patch to a verdict (docs/try.md): `make lab-try PATCH='a.patch b.patch'
# TOPOS=2node,la-2node SUITES=mempolicy EXPECT='bulk_calls decreases'`;
# the guest binaries first, for every arch the shapes need.
.PHONY: lab-try
comma := ,
TRY_ARCHES = $(sort $(foreach t,$(subst $(comma), ,$(or $(call given,TOPOS),2node,4node)),\
	$(or $(shell sed -n 's/^arch[[:space:]]*//p' topologies/$(t).topo 2>/dev/null),x86_64)))
lab-try: numalab
	@for a in $(TRY_ARCHES); do \
		./numalab setup --quiet --arch $$a && $(MAKE) -s numalab guest GUEST_ARCH=$$a || exit; done
	./numalab try $(TRY_ARGS)

# A kernel from kernels/recipes/$(K).recipe: `make kernel K=stock ARCH=loongarch`.
K    = stock
ARCH = x86_64
kernel: numalab
	@./numalab setup --quiet --arch $(if $(filter loongarch%,$(ARCH)),loongarch64,x86_64)
	./numalab kernel build $(K) $(call options,$(KERNEL_OPTIONS),$(KERNEL_LISTS))

# A guest disk from images/$(IMAGE).image: `make image IMAGE=debian` (docs/images.md).
IMAGE = debian
image: numalab
	@./numalab setup --quiet
	@$(MAKE) -s numalab guest GUEST_ARCH=x86_64
	./numalab image build $(IMAGE) $(call options,$(IMAGE_OPTIONS))

# Tests link objects, never sources: a dependency list (-MMD) then names a
# source only as its own object's, so moving a source leaves a stale list
# behind for an object nothing asks for, not for a binary make must build.
$(BUILD)/host/tests/host/unit/%.o $(BUILD)/san/tests/host/unit/%.o: LAB_CFLAGS += -Itests/host/unit -Itests/guest/lib -Itests/guest/suites/mempolicy -Iimages/init
$(BUILD)/host/tests/guest/suites/%.o $(BUILD)/san/tests/guest/suites/%.o: LAB_CFLAGS += -Itests/guest/lib

$(BUILD)/unit/%: $(BUILD)/host/tests/host/unit/%.o $(UNIT_LIB_OBJ) $(LAB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LAB_LIBS)

$(BUILD)/unit-san/%: $(BUILD)/san/tests/host/unit/%.o $(UNIT_LIB_SAN_OBJ) $(LAB_SAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LAB_LIBS)

# libFuzzer targets (tests/host/fuzz/README.md): clang, ASan+UBSan, over the lab's objects.
FUZZ_CC  ?= clang
FUZZ_TIME ?= 600
FUZZ_SRC  = $(wildcard tests/host/fuzz/fuzz_*.c)
FUZZ_BIN  = $(FUZZ_SRC:tests/host/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_SAN  = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_OBJ  = $(LAB_SRC:%.c=$(BUILD)/fuzz-obj/%.o)

$(BUILD)/fuzz-obj/%.o: %.c | $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(DEPFLAGS) -Ilab -I$(BUILD) -c -o $@ $<

$(BUILD)/fuzz/%: $(BUILD)/fuzz-obj/tests/host/fuzz/%.o $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LAB_LIBS)

# Each target FUZZ_TIME seconds over its committed seeds; new inputs go to
# build/fuzz/corpus/, crashes to build/fuzz/crash-*: add them to the seeds.
fuzz: $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do t=$${f##*/fuzz_}; mkdir -p $(BUILD)/fuzz/corpus/$$t; \
	  echo "fuzz $$t: $(FUZZ_TIME) s"; \
	  $$f -max_total_time=$(FUZZ_TIME) -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/crash-$$t- \
	    $(BUILD)/fuzz/corpus/$$t tests/host/fuzz/corpus/$$t || exit; done

# Every host and guest source and header compiled for its diagnostics only
# (-fsyntax-only: nothing written, nothing linked) with the flags of its own
# build, in four groups for -j.  tests/host/integration/portable-build.sh
# runs `make syntax` inside the toolroot (trixie's gcc and glibc), so the
# sources keep building with a newer toolchain than the host's.
.PHONY: syntax syntax-host syntax-unit syntax-guest syntax-headers
syntax: syntax-host syntax-unit syntax-guest syntax-headers
SYNTAX_HOST_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) -Ilab -I$(BUILD)
SYNTAX_GUEST_CFLAGS = $(filter-out -static,$(GUEST_CFLAGS))
syntax-host: | $(CONFIG_H) $(VERSION_H)
	$(CC) $(SYNTAX_HOST_CFLAGS) -fsyntax-only runner.c $(LAB_SRC) $(FUZZ_SRC)
syntax-unit: | $(CONFIG_H)
	$(CC) $(SYNTAX_HOST_CFLAGS) -Itests/host/unit -Itests/guest/lib -Itests/guest/suites/mempolicy \
		-Iimages/init -fsyntax-only $(UNIT_SRC) $(UNIT_LIB)
syntax-guest:
	$(CC) $(SYNTAX_GUEST_CFLAGS) -Iimages/init -fsyntax-only $(INIT_SRC)
	$(CC) $(SYNTAX_GUEST_CFLAGS) -fsyntax-only $(filter-out tests/guest/lib/sys.c,$(GUEST_LIB)) \
		$(wildcard tests/guest/suites/*/*.c)
# Each header alone: it includes what it uses itself.  Compiled as the main
# file, its static inline helpers go unused, which clang reports.
syntax-headers: | $(CONFIG_H)
	$(CC) $(SYNTAX_HOST_CFLAGS) -Wno-unused-function -Itests/host/unit -Itests/guest/lib -Itests/guest/suites/mempolicy \
		-Iimages/init -fsyntax-only -x c $(wildcard lab/*/*.h images/init/*.h tests/guest/lib/*.h \
		tests/guest/suites/*/*.h tests/host/unit/*.h tests/host/fuzz/*.h)

# Setup first (it installs clang, libvirt-dev, automake, ...), then a sub-make
# that sees what it installed builds the tests and runs each under automake's
# tap-driver.sh, logs in build/check/ (tests/host/check); `make recheck` runs again
# only what failed (or never finished) last time.
check check-full: numalab
	@./numalab setup --quiet --arch loongarch64
	@$(MAKE) -s $@-run

.PHONY: check-run check-full-run
check-run: all $(UNIT_BIN) $(UNIT_SAN) $(FUZZ_BIN)
	@tests/host/check $(UNIT_BIN) $(UNIT_SAN)

check-full-run: all $(UNIT_BIN) $(UNIT_SAN) $(FUZZ_BIN)
	@tests/host/check --full $(UNIT_BIN) $(UNIT_SAN)

recheck: all $(UNIT_BIN) $(UNIT_SAN) $(FUZZ_BIN)
	@tests/host/check --recheck

# `make bench` measures these shapes, --accel auto against tcg, the lab's
# kernel against Debian's (first TAP), libvirt's per-VM overhead against the
# direct backend (2node; docs/libvirt.md), then kernel builds (cold,
# incremental, warm ccache: tens of minutes), and with LAVA=URL (token in
# $NUMALAB_LAVA_TOKEN) a 2node cell as a LAVA job against the same cell here
# (docs/lava.md); `make bench TOPO=x` just boots x.
BENCH_TOPOS = $(if $(filter command line,$(origin TOPO)),$(TOPO),2node la-2node la-3c5000l)

bench: all
	@./numalab setup --quiet --arch loongarch64
	@$(MAKE) -s numalab guest GUEST_ARCH=loongarch64
	@for t in $(BENCH_TOPOS); do ./numalab bench --topo $$t || exit; done
	$(if $(filter command line,$(origin TOPO)),,./numalab bench --topo 2node --accel-choice)
	$(if $(filter command line,$(origin TOPO)),,./numalab kernel build stock && ./numalab bench --topo 2node --kernel stock --against debian)
	$(if $(filter command line,$(origin TOPO)),,tests/host/libvirtd with /run/numalab-libvirt ./numalab bench --topo 2node --backend libvirt)
	$(if $(filter command line,$(origin TOPO)),,./numalab bench --kernel-build stock --patched wi-carryover)
	$(if $(LAVA),./numalab bench --topo 2node --lava $(LAVA))

clean:
	rm -rf $(BUILD) numalab

# The dependency lists -MMD wrote (none before the first build).
# Only objects' lists: binaries linked before tests linked objects left lists
# naming sources that have moved since.
-include $(shell find $(BUILD)/host $(BUILD)/san $(BUILD)/fuzz-obj -name '*.d' 2>/dev/null)
