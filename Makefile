# numalab — see README.md.  `make` builds ./numalab and the guest binaries.
CC      ?= cc
CSTD     = -std=c11 -D_GNU_SOURCE
WARN     = -Wall -Wextra -Werror
# gcc guesses at snprintf truncation of bounded paths; clang has no such flag.
WARN    += $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-Wno-format-truncation)
CFLAGS  ?= -O2 -g
LAB_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) -Ilab
# The libvirt backend (lab/vm_libvirt.c) needs libvirt-dev, which `make setup`
# installs; numalab itself (setup) must build before that.  The stamp's name
# changes with the answer, so vm_libvirt.o is rebuilt once libvirt arrives.
HAVE_LIBVIRT := $(shell pkg-config --exists libvirt 2>/dev/null && echo yes || echo no)
LIBS_STAMP = $(B)/libvirt-$(HAVE_LIBVIRT)-guestfs-$(HAVE_GUESTFS).stamp
LAB_LIBS = $(if $(filter yes,$(HAVE_LIBVIRT)),-lvirt)
# lab/stats.c: sqrt, exp, log, lgamma.
LAB_LIBS += -lm
LAB_DEFS = $(if $(filter no,$(HAVE_LIBVIRT)),-DNUMALAB_NO_LIBVIRT)
# lab/disk.c drives libguestfs (libguestfs-dev), installed by `make setup` too.
HAVE_GUESTFS := $(shell pkg-config --exists libguestfs 2>/dev/null && echo yes || echo no)
LAB_LIBS += $(if $(filter yes,$(HAVE_GUESTFS)),-lguestfs)
LAB_DEFS += $(if $(filter no,$(HAVE_GUESTFS)),-DNUMALAB_NO_GUESTFS)
LAB_CFLAGS += $(LAB_DEFS)
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

B        = build
LAB_SRC  = $(wildcard lab/*.c)
LAB_HDR  = $(wildcard lab/*.h)
LAB_OBJ  = $(LAB_SRC:%.c=$(B)/host/%.o)
LAB_SAN_OBJ = $(LAB_SRC:%.c=$(B)/san/%.o)

# Guest side: a static /init and one static binary per test directory, for
# the arch of TOPO (LoongArch cross-built inside the toolroot, docs/toolroot.md).
TOPO    ?= 2node
TOPO_FILE = $(firstword $(wildcard $(TOPO) topologies/$(TOPO).topo))
GUEST_ARCH ?= $(or $(if $(TOPO_FILE),$(shell sed -n 's/^arch[[:space:]]*//p' $(TOPO_FILE))),x86_64)
GUEST_CC_x86_64 = gcc
GUEST_CC_loongarch64 = ./numalab toolroot-exec --auto -- loongarch64-linux-gnu-gcc
GUEST_DEPS_loongarch64 = numalab
GUEST_CC = $(GUEST_CC_$(GUEST_ARCH))
GUEST_CFLAGS = $(CSTD) -Wall -Wextra -Werror -O2 -static -Ilab -Itests/lib
GUEST_TESTS = $(filter-out unit lib integration fuzz,$(notdir $(patsubst %/,%,$(wildcard tests/*/))))
GB       = $(B)/guest/$(GUEST_ARCH)
GUEST_BINS = $(GB)/init $(GUEST_TESTS:%=$(GB)/tests/%)
GUEST_LIB  = $(wildcard tests/lib/*.c) lab/topology.c

UNIT_SRC = $(wildcard tests/unit/test_*.c)
# Guest-side code the host unit tests check too (the weighted-interleave model).
UNIT_LIB = tests/lib/wi_model.c
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)
UNIT_SAN = $(UNIT_SRC:tests/unit/%.c=$(B)/unit-san/%)

TIMEOUT ?=
RUN_ARGS = --topo $(TOPO) $(if $(KERNEL),--kernel $(KERNEL)) $(foreach p,$(PATCH),--patch $(p)) $(if $(TESTS),--tests $(TESTS)) \
	   $(if $(BACKEND),--backend $(BACKEND)) $(if $(URI),--uri $(URI)) $(if $(HOST_NODES),--host-nodes $(HOST_NODES)) \
	   $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(OUT),--out $(OUT)) \
	   $(if $(GUEST_FILE),--guest-file $(GUEST_FILE))

# BACKEND=libvirt without a URI: a private libvirtd for the run (tests/libvirtd).
LIBVIRT_WITH = $(if $(filter libvirt,$(BACKEND)),$(if $(URI)$(LIBVIRT_DEFAULT_URI),,tests/libvirtd with /run/numalab-libvirt))

.PHONY: all guest setup lab-run lab-bisect lab-compare kernel image check check-full bench fuzz clean
.DELETE_ON_ERROR:
# Objects are shared by many targets: never delete them as intermediates.
.SECONDARY:

all: numalab guest

numalab: $(LAB_OBJ) $(B)/host/runner.o
	$(CC) $(CFLAGS) -o $@ $^ $(LAB_LIBS)

$(B)/host/%.o: %.c $(LAB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) -c -o $@ $<

$(LIBS_STAMP):
	@mkdir -p $(dir $@)
	@touch $@

$(foreach d,host san fuzz-obj,$(B)/$(d)/lab/vm_libvirt.o $(B)/$(d)/lab/disk.o): $(LIBS_STAMP)

$(B)/san/%.o: %.c $(LAB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(SAN) -c -o $@ $<

guest: $(GUEST_BINS)

$(GB)/init: images/init.c $(wildcard tests/lib/*.h) | $(GUEST_DEPS_$(GUEST_ARCH))
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $<

$(GB)/tests/%: tests/%/*.c $(GUEST_LIB) $(wildcard tests/lib/*.h) lab/topology.h | $(GUEST_DEPS_$(GUEST_ARCH))
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $(wildcard tests/$*/*.c) $(GUEST_LIB)

# Host packages and the pinned kernel; idempotent.
setup: numalab
	./numalab setup

lab-run: numalab
	@./numalab setup --quiet --arch $(GUEST_ARCH)
	@$(MAKE) -s guest GUEST_ARCH=$(GUEST_ARCH)
	$(LIBVIRT_WITH) ./numalab run $(RUN_ARGS)

# Find the commit of KSRC between GOOD and BAD that breaks TEST, or (METRIC=,
# THRESHOLD=, REPEAT=) that regresses a metric of it (docs/bisect.md).
RECIPE ?= stock
lab-bisect: numalab
	@./numalab setup --quiet --arch $(GUEST_ARCH)
	@$(MAKE) -s guest GUEST_ARCH=$(GUEST_ARCH)
	./numalab bisect --ksrc "$(KSRC)" --good "$(GOOD)" --bad "$(BAD)" --topo $(TOPO) \
		--test "$(TEST)" --recipe $(RECIPE) $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(OUT),--out $(OUT)) \
		$(if $(METRIC),--metric "$(METRIC)") $(if $(REPEAT),--repeat $(REPEAT)) \
		$(if $(THRESHOLD),--threshold $(THRESHOLD)) $(if $(ALPHA),--alpha $(ALPHA))

# Compare two result trees (run or matrix directories): `make lab-compare A=DIR B=DIR`.
lab-compare: numalab
	./numalab compare $(COMPARE_ARGS) $(A) $(B)

# A test matrix (docs/matrix.md): `make lab-matrix MATRIX=nightly JOBS=2 OUT=dir SHARD=0/4`.
.PHONY: lab-matrix
MATRIX ?= smoke
MATRIX_ARGS = $(MATRIX) $(if $(JOBS),--jobs $(JOBS)) $(if $(OUT),--out $(OUT)) $(if $(SHARD),--shard $(SHARD))
lab-matrix: numalab
	@for a in $$(./numalab matrix $(MATRIX) --arches $(if $(SHARD),--shard $(SHARD))); do \
		./numalab setup --quiet --arch $$a && $(MAKE) -s guest GUEST_ARCH=$$a || exit; done
	./numalab matrix $(MATRIX_ARGS)

# A kernel from kernels/recipes/$(K).recipe: `make kernel K=stock ARCH=loongarch`.
K    ?= stock
ARCH ?= x86_64
kernel: numalab
	@./numalab setup --quiet --arch $(if $(filter loongarch%,$(ARCH)),loongarch64,x86_64)
	./numalab kernel build $(K) --arch $(ARCH)

# A guest disk from images/$(IMAGE).image: `make image IMAGE=debian` (docs/images.md).
IMAGE ?= debian
image: numalab
	@./numalab setup --quiet
	@$(MAKE) -s guest GUEST_ARCH=x86_64
	./numalab image build $(IMAGE)

$(B)/unit/%: tests/unit/%.c $(LAB_OBJ) $(UNIT_LIB) tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) -Itests/unit -Itests/lib -o $@ $< $(UNIT_LIB) $(LAB_OBJ) $(LAB_LIBS)

$(B)/unit-san/%: tests/unit/%.c $(LAB_SAN_OBJ) $(UNIT_LIB) tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(SAN) -Itests/unit -Itests/lib -o $@ $< $(UNIT_LIB) $(LAB_SAN_OBJ) $(LAB_LIBS)

# libFuzzer targets (tests/fuzz/README.md): clang, ASan+UBSan, over the lab's objects.
FUZZ_CC  ?= clang
FUZZ_TIME ?= 600
FUZZ_SRC  = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  = $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_SAN  = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_OBJ  = $(LAB_SRC:%.c=$(B)/fuzz-obj/%.o)

$(B)/fuzz-obj/%.o: %.c $(LAB_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(LAB_DEFS) -Ilab -c -o $@ $<

$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer -Ilab -o $@ $< $(FUZZ_OBJ) $(LAB_LIBS)

# Each target FUZZ_TIME seconds over its committed seeds; new inputs go to
# build/fuzz/corpus/, crashes to build/fuzz/crash-*: add them to the seeds.
fuzz: $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do t=$${f##*/fuzz_}; mkdir -p $(B)/fuzz/corpus/$$t; \
	  echo "fuzz $$t: $(FUZZ_TIME) s"; \
	  $$f -max_total_time=$(FUZZ_TIME) -print_final_stats=1 -artifact_prefix=$(B)/fuzz/crash-$$t- \
	    $(B)/fuzz/corpus/$$t tests/fuzz/corpus/$$t || exit; done

check: all $(UNIT_BIN) $(UNIT_SAN) $(FUZZ_BIN)
	@./numalab setup --quiet --arch loongarch64
	@tests/check $(UNIT_BIN) $(UNIT_SAN)

check-full: all $(UNIT_BIN) $(UNIT_SAN) $(FUZZ_BIN)
	@./numalab setup --quiet --arch loongarch64
	@tests/check --full $(UNIT_BIN) $(UNIT_SAN)

# `make bench` measures these shapes, libvirt's per-VM overhead against the
# direct backend (2node; docs/libvirt.md), then kernel builds (cold,
# incremental, warm ccache: tens of minutes); `make bench TOPO=x` just boots x.
BENCH_TOPOS = $(if $(filter command line,$(origin TOPO)),$(TOPO),2node la-2node la-3c5000l)

bench: all
	@./numalab setup --quiet --arch loongarch64
	@$(MAKE) -s guest GUEST_ARCH=loongarch64
	@for t in $(BENCH_TOPOS); do ./numalab bench --topo $$t || exit; done
	$(if $(filter command line,$(origin TOPO)),,tests/libvirtd with /run/numalab-libvirt ./numalab bench --topo 2node --backend libvirt)
	$(if $(filter command line,$(origin TOPO)),,./numalab bench --kernel-build stock --patched wi-carryover)

clean:
	rm -rf $(B) numalab
