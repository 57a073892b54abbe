# numalab — see README.md.  `make` builds ./numalab and the guest binaries.
CC      ?= cc
CSTD     = -std=c11 -D_GNU_SOURCE
WARN     = -Wall -Wextra -Werror
# gcc guesses at snprintf truncation of bounded paths; clang has no such flag.
WARN    += $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-Wno-format-truncation)
CFLAGS  ?= -O2 -g
LAB_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) -Ilab
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

B        = build
LAB_SRC  = $(wildcard lab/*.c)
LAB_HDR  = $(wildcard lab/*.h)
LAB_OBJ  = $(LAB_SRC:%.c=$(B)/host/%.o)
LAB_SAN_OBJ = $(LAB_SRC:%.c=$(B)/san/%.o)

# Guest side: a static /init and one static binary per test directory.
GUEST_ARCH ?= x86_64
GUEST_CC_x86_64 = gcc
GUEST_CC = $(GUEST_CC_$(GUEST_ARCH))
GUEST_CFLAGS = $(CSTD) -Wall -Wextra -Werror -O2 -static -Ilab -Itests/lib
GUEST_TESTS = $(filter-out unit lib integration,$(notdir $(patsubst %/,%,$(wildcard tests/*/))))
GB       = $(B)/guest/$(GUEST_ARCH)
GUEST_BINS = $(GB)/init $(GUEST_TESTS:%=$(GB)/tests/%)
GUEST_LIB  = $(wildcard tests/lib/*.c) lab/topology.c

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)
UNIT_SAN = $(UNIT_SRC:tests/unit/%.c=$(B)/unit-san/%)

TOPO    ?= 2node
TIMEOUT ?=
RUN_ARGS = --topo $(TOPO) $(if $(KERNEL),--kernel $(KERNEL)) $(if $(TESTS),--tests $(TESTS)) \
	   $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(OUT),--out $(OUT))

.PHONY: all guest setup lab-run check check-full bench clean
.DELETE_ON_ERROR:
# Objects are shared by many targets: never delete them as intermediates.
.SECONDARY:

all: numalab guest

numalab: $(LAB_OBJ) $(B)/host/runner.o
	$(CC) $(CFLAGS) -o $@ $^

$(B)/host/%.o: %.c $(LAB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) -c -o $@ $<

$(B)/san/%.o: %.c $(LAB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(SAN) -c -o $@ $<

guest: $(GUEST_BINS)

$(GB)/init: images/init.c $(wildcard tests/lib/*.h)
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $<

$(GB)/tests/%: tests/%/*.c $(GUEST_LIB) $(wildcard tests/lib/*.h) lab/topology.h
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $(wildcard tests/$*/*.c) $(GUEST_LIB)

# Host packages and the pinned kernel; idempotent.
setup: numalab
	./numalab setup

lab-run: all
	@./numalab setup --quiet
	./numalab run $(RUN_ARGS)

$(B)/unit/%: tests/unit/%.c $(LAB_OBJ) tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) -Itests/unit -o $@ $< $(LAB_OBJ)

$(B)/unit-san/%: tests/unit/%.c $(LAB_SAN_OBJ) tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(SAN) -Itests/unit -o $@ $< $(LAB_SAN_OBJ)

check: all $(UNIT_BIN) $(UNIT_SAN)
	@./numalab setup --quiet
	@tests/check $(UNIT_BIN) $(UNIT_SAN)

check-full: all $(UNIT_BIN) $(UNIT_SAN)
	@./numalab setup --quiet
	@tests/check --full $(UNIT_BIN) $(UNIT_SAN)

bench: all
	@./numalab setup --quiet
	./numalab bench --topo $(TOPO)

clean:
	rm -rf $(B) numalab
