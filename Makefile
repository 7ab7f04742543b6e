# The two commands of dxcl:  make demo  (see it work)  and  make check  (run every test).
BUILD ?= build
TOOLCHAIN := cmake/mingw-w64-x86_64.cmake
JOBS ?= $(shell nproc)

.PHONY: all deps configure build demo check bench soak dist clean

all: build

deps:
	@scripts/install-deps.sh

# DXVK=DIR (DXVK's DLLs or release tarball) runs every Direct3D test again on DXVK; the build
# tree keeps it until DXVK= turns it off (docs/testing.md, "Direct3D on DXVK").
ifneq ($(origin DXVK),undefined)
DXVK_SETTING := DXCL_DXVK_DIR:PATH=$(if $(DXVK),$(abspath $(DXVK)))
endif

$(BUILD)/CMakeCache.txt: | deps
	@cmake -S . -B $(BUILD) -DCMAKE_TOOLCHAIN_FILE=$(TOOLCHAIN) -DCMAKE_BUILD_TYPE=Release \
		$(if $(DXVK_SETTING),-D$(DXVK_SETTING)) >/dev/null

configure: $(BUILD)/CMakeCache.txt
ifdef DXVK_SETTING
	@grep -qxF '$(DXVK_SETTING)' $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -D$(DXVK_SETTING) >/dev/null
endif

build: deps configure
	@cmake --build $(BUILD) -j $(JOBS)

# Only the DLL and the demo: a demo that runs in seconds does not wait for the test programs.
demo: deps configure
	@cmake --build $(BUILD) -j $(JOBS) --target run-demo

check: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 300

bench: build
	@cmake --build $(BUILD) --target run-bench

# The full forms of the reliability runs (docs/reliability.md): 8 threads x 1,000 frames and
# 10,000 soak cycles (STRESS_FRAMES, SOAK_CYCLES, SOAK_EVERY for other counts).
soak: build
	@cmake --build $(BUILD) --target run-soak

# The release archive: build/dist/dxcl-<version>.tar.gz (docs/deploy.md, "Releases").
dist: deps configure
	@cmake --build $(BUILD) -j $(JOBS) --target dist

clean:
	rm -rf $(BUILD)
