package edits

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"
)

// renameExchange swaps two names atomically (renameat2 with
// RENAME_EXCHANGE), or reports false where its number is not known here.
func renameExchange(a, b string) (supported bool, err error) {
	nr := map[string]uintptr{"amd64": 316, "386": 353, "arm64": 276, "riscv64": 276, "loong64": 276, "arm": 382}[runtime.GOARCH]
	if nr == 0 {
		return false, nil
	}
	pa, _ := syscall.BytePtrFromString(a)
	pb, _ := syscall.BytePtrFromString(b)
	atFDCWD := -100
	const renameExchange = 2
	_, _, errno := syscall.Syscall6(nr, uintptr(atFDCWD), uintptr(unsafe.Pointer(pa)), uintptr(atFDCWD), uintptr(unsafe.Pointer(pb)), renameExchange, 0)
	runtime.KeepAlive(pa)
	runtime.KeepAlive(pb)
	if errno != 0 {
		return true, errno
	}
	return true, nil
}

// TestApplyToDiskRace is the check-then-use attack: another process swaps
// a folder of the workspace and a symlink to a folder outside it, over and
// over (renameat2 RENAME_EXCHANGE, else two renames), while 300 applies
// create and change files in that folder. Each apply either writes inside
// the root or refuses; not one byte lands outside, and no temporary file
// is left behind.
func TestApplyToDiskRace(t *testing.T) {
	for _, walkOnly := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "openat walk"}[walkOnly], func(t *testing.T) {
			outside := t.TempDir()
			// The same content inside and out, so a change's base check
			// passes whichever folder it reads.
			os.WriteFile(filepath.Join(outside, "m.txt"), []byte("m\n"), 0o644)
			root := tree(t, map[string]string{"dir/m.txt": "m\n"})
			dir, link := filepath.Join(root, "dir"), filepath.Join(root, "link")
			symlink(t, outside, link)

			stop := make(chan struct{})
			var swaps atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if ok, err := renameExchange(dir, link); ok {
						if err == nil {
							swaps.Add(1)
						}
						continue
					}
					// No renameat2 here: swap with two renames.
					os.Rename(dir, dir+".real")
					os.Rename(link, dir)
					os.Rename(dir, link)
					os.Rename(dir+".real", dir)
					swaps.Add(1)
				}
			}()
			applied := 0
			for i := range 300 {
				cs := &Changeset{}
				cs.Write(fmt.Sprintf("dir/new%d.txt", i), "", false, 0, "pwned\n")
				if err := applyToDisk(root, cs, diskOptions{walkOnly: walkOnly}); err == nil {
					applied++
				}
				cs = &Changeset{}
				cs.Write("dir/m.txt", "m\n", true, 0, "m\n"+fmt.Sprint(i)+"\n")
				if err := applyToDisk(root, cs, diskOptions{walkOnly: walkOnly}); err == nil {
					applied++
					// Put the base back wherever the write went (inside).
					for _, d := range []string{dir, link} {
						if data, err := os.ReadFile(filepath.Join(d, "m.txt")); err == nil && string(data) != "m\n" {
							os.WriteFile(filepath.Join(d, "m.txt"), []byte("m\n"), 0o644)
						}
					}
				}
			}
			close(stop)
			wg.Wait()
			// Settle: the real folder back under its name.
			if info, err := os.Lstat(dir); err == nil && info.Mode()&os.ModeSymlink != 0 {
				renameExchange(dir, link)
			}
			t.Logf("%d of 600 applies written, %d swaps meanwhile", applied, swaps.Load())
			if got := snapshot(t, outside); !equalMaps(got, map[string]string{"m.txt": "m\n"}) {
				t.Errorf("%d files outside the root written or changed: %q", len(got)-1, got)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if name := e.Name(); name[0] == '.' {
					t.Errorf("temporary file left: %s", name)
				}
			}
			if applied == 0 || swaps.Load() == 0 {
				t.Errorf("the race did not run: %d applied, %d swaps", applied, swaps.Load())
			}
		})
	}
}

// TestOpenBeneathRefusesSymlinks: a folder is opened beneath the root
// with no symlink on the way, even one that stays inside, with openat2
// and with the per-folder walk alike.
func TestOpenBeneathRefusesSymlinks(t *testing.T) {
	root := tree(t, map[string]string{"real/sub/f.txt": "f\n"})
	symlink(t, "real", filepath.Join(root, "link"))
	realRoot, _ := filepath.EvalSymlinks(root)
	dir, err := openRootFolder(realRoot)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.close()
	for _, walkOnly := range []bool{false, true} {
		f, err := dir.openBeneath("real/sub", walkOnly)
		if err != nil {
			t.Fatalf("walkOnly %v: real/sub: %v", walkOnly, err)
		}
		f.close()
		for _, rel := range []string{"link/sub", "link", "real/../link"} {
			// ELOOP, or ENOTDIR for O_NOFOLLOW|O_DIRECTORY on the link
			// itself, or EINVAL for the walk's "..": refused either way.
			if f, err := dir.openBeneath(rel, walkOnly); err == nil {
				f.close()
				t.Errorf("walkOnly %v: %s opened through a symlink", walkOnly, rel)
			}
		}
	}
	// Where the kernel has openat2, it is what runs (not the walk).
	if _, err := dir.openBeneath("link/sub", false); err != nil && !strings.Contains(err.Error(), "openat2") {
		t.Logf("openat2 not available, the walk ran: %v", err)
	} else {
		t.Logf("openat2: %v", err)
	}
}

// TestSyncFor: a file is synced before its rename unless its filesystem
// orders the data before the rename (ext4, btrfs) or keeps nothing
// (tmpfs); xfs, overlay, NFS and anything unknown are synced.
func TestSyncFor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		magic int64
		sync  bool
	}{
		{"ext4", 0xef53, false},
		{"btrfs", 0x9123683e, false},
		{"tmpfs", 0x01021994, false},
		{"xfs", 0x58465342, true},
		{"overlay", 0x794c7630, true},
		{"nfs", 0x6969, true},
		{"unknown", 0, true},
	} {
		if got := syncFor(tc.magic); got != tc.sync {
			t.Errorf("%s (%#x): sync %v, want %v", tc.name, tc.magic, got, tc.sync)
		}
	}
}

// TestSyncBeforeRenameReadsTheFilesystem: the decision is the one of the
// filesystem the folder is on (read with statfs), and a folder that is
// not a descriptor is synced.
func TestSyncBeforeRenameReadsTheFilesystem(t *testing.T) {
	dir := t.TempDir()
	f, err := openRootFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if got, want := syncBeforeRename(f), syncFor(int64(st.Type)); got != want {
		t.Errorf("syncBeforeRename = %v, want %v for filesystem %#x", got, want, st.Type)
	}
	if !syncBeforeRename(nil) {
		t.Error("a folder that is not a descriptor was not synced")
	}
}
