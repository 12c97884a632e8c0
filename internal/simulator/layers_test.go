package simulator

import (
	"go/build"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const simulatorImportPath = "github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"

// simulatorFloors places each package of the simulator (by its directory
// under internal/simulator; "." is this one) on a floor. A package imports
// only packages on lower floors, so no arrow runs back up: the model, the
// wire format, the loopback blocks and the behaviour profiles at the bottom,
// the faults and the network endpoints above them, the runtime every area
// shares (core) over those, then the areas, each on its own floor (the
// catalogue and accounts, then the networks and rules, then the CKS
// workers, then the admin API), the simulator's public API over all of
// them, and the test support on top.
var simulatorFloors = map[string]int{
	"model":     0,
	"wire":      0,
	"loopback":  0,
	"profiles":  0,
	"faults":    1,
	"endpoints": 1,
	"core":      2,
	"catalog":   3,
	"network":   4,
	"cluster":   5,
	"admin":     6,
	".":         7,
	"simtest":   8,
}

// TestSimulatorPackagesFormLayers fails when a production file of a
// simulator package imports a package of the simulator on its own floor or
// above, or when a package has no floor yet.
func TestSimulatorPackagesFormLayers(t *testing.T) {
	t.Parallel()
	dirs := simulatorPackageDirs(t)
	if len(dirs) != len(simulatorFloors) {
		t.Errorf("simulator packages %v, floors given for %v: place every package on a floor",
			dirs, slices.Sorted(maps.Keys(simulatorFloors)))
	}
	arrows := 0
	for _, dir := range dirs {
		floor, placed := simulatorFloors[dir]
		if !placed {
			t.Errorf("package %s has no floor in simulatorFloors", dir)
			continue
		}
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("reading package %s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			to, ok := simulatorDir(imp)
			if !ok {
				continue
			}
			arrows++
			if toFloor, known := simulatorFloors[to]; !known || toFloor >= floor {
				t.Errorf("%s (floor %d) imports %s (floor %d): a package imports only packages on lower floors",
					dir, floor, to, toFloor)
			}
		}
	}
	if arrows < len(simulatorFloors) {
		t.Fatalf("only %d imports between simulator packages found: the check read too little", arrows)
	}
}

// simulatorPackageDirs lists the directories under internal/simulator that
// hold production Go files.
func simulatorPackageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if dir := filepath.ToSlash(filepath.Dir(path)); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	return dirs
}

// simulatorDir is the directory of a simulator package under
// internal/simulator, from its import path.
func simulatorDir(importPath string) (string, bool) {
	if importPath == simulatorImportPath {
		return ".", true
	}
	rest, ok := strings.CutPrefix(importPath, simulatorImportPath+"/")
	return rest, ok
}
