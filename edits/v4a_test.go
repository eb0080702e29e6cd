package edits

import (
	"strings"
	"testing"
)

func TestParseV4A(t *testing.T) {
	patch := `*** Begin Patch
*** Add File: new.txt
+hello
+world
*** Delete File: old.txt
*** Update File: a.go
*** Move to: b.go
@@ func main() {
 	x := 1
-	y := 2
+	y := 3
*** End of File
*** End Patch`
	files, err := ParseV4A(patch)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || files[0].Op != V4AAdd || files[0].Content != "hello\nworld\n" ||
		files[1].Op != V4ADelete || files[1].Path != "old.txt" ||
		files[2].Op != V4AUpdate || files[2].Path != "a.go" || files[2].MoveTo != "b.go" {
		t.Fatalf("files = %+v", files)
	}
	h := files[2].Hunks
	if len(h) != 1 || strings.Join(h[0].Scope, "|") != "func main() {" || !h[0].AtEOF ||
		strings.Join(h[0].Original, "|") != "\tx := 1|\ty := 2" || strings.Join(h[0].Updated, "|") != "\tx := 1|\ty := 3" {
		t.Errorf("hunk = %+v", h)
	}
}

func TestParseV4ALenient(t *testing.T) {
	for _, patch := range []string{
		"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End Patch\nEOF",
		"*** Begin Patch\n*** Update File: a\n-x\n+y\n",      // no End Patch
		"  ***  Begin Patch \n***Update File:  a \n-x\n+y\n", // marker spacing
	} {
		files, err := ParseV4A(patch)
		if err != nil || len(files) != 1 || files[0].Path != "a" || len(files[0].Hunks) != 1 {
			t.Errorf("ParseV4A(%q) = %+v, %v", patch, files, err)
		}
	}
	for _, tc := range []struct{ patch, err string }{
		{"*** Update File: a\n-x\n+y\n", "starts with \"*** Begin Patch\""},
		{"*** Begin Patch\n*** Update File: a\n?x\n", "starts with \" \", \"-\" or \"+\""},
		{"*** Begin Patch\n*** Add File: a\nx\n", "every line of an added file starts with \"+\""},
		{"*** Begin Patch\n*** End Patch", "changes no file"},
		{"*** Begin Patch\nhello\n", "expected a file header"},
	} {
		if _, err := ParseV4A(tc.patch); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseV4A(%q) err = %v, want %q", tc.patch, err, tc.err)
		}
	}
}

func TestV4AHunks(t *testing.T) {
	twoFuncs := "func a() {\n\tx := 1\n\treturn\n}\n\nfunc b() {\n\tx := 1\n\treturn\n}\n"
	for _, tc := range []struct {
		name, file, patch, want, err string
	}{
		{"scope picks the second copy", twoFuncs, "@@ func b() {\n-\tx := 1\n+\tx := 2\n", strings.Replace(twoFuncs, "b() {\n\tx := 1", "b() {\n\tx := 2", 1), ""},
		{"without scope the copies are ambiguous", twoFuncs, "-\tx := 1\n+\tx := 2\n", "", "matches 2 places"},
		{"insert after the scope line", "class A:\n    def f(self):\n        pass\n\nclass B:\n    pass\n", "@@ class A:\n+    x = 1\n",
			"class A:\n    x = 1\n    def f(self):\n        pass\n\nclass B:\n    pass\n", ""},
		{"bare insertion goes at the end", "a\nb\n", "+c\n", "a\nb\nc\n", ""},
		{"bare insertion into a file without a final newline", "a\nb", "+c\n", "a\nb\nc", ""},
		{"end of file", "x\ny\nx\n", " y\n-x\n+z\n*** End of File\n", "x\ny\nz\n", ""},
		{"end of file that is not", "x\ny\nz\n", "-x\n+w\n*** End of File\n", "", "not the file's last lines"},
		{"ambiguous scope", twoFuncs + "func b() {\n}\n", "@@ func b() {\n-\tx := 1\n+\tx := 2\n", "", "matches lines 6 and 10"},
		{"stacked scopes", "type T struct{}\nfunc (T) f() {\n\treturn 1\n}\nfunc g() {\n\treturn 1\n}\n", "@@ type T struct{}\n@@ func (T) f() {\n-\treturn 1\n+\treturn 2\n",
			"type T struct{}\nfunc (T) f() {\n\treturn 2\n}\nfunc g() {\n\treturn 1\n}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := ParseV4A("*** Begin Patch\n*** Update File: f\n" + tc.patch + "*** End Patch")
			if err != nil {
				t.Fatal(err)
			}
			got, err := ApplyHunks(tc.file, files[0].Hunks)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// FuzzParseV4A checks that parsing never panics and keeps its lines.
func FuzzParseV4A(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ x\n-x\n+y\n*** End of File\n*** End Patch")
	f.Add("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: b\n+z\n*** Delete File: c\nEOF")
	f.Fuzz(func(t *testing.T, patch string) {
		files, err := ParseV4A(patch)
		if err != nil {
			return
		}
		for _, fl := range files {
			for _, h := range fl.Hunks {
				for _, l := range append(append([]string{}, h.Original...), h.Updated...) {
					if !strings.Contains(patch, l) {
						t.Fatalf("line %q is not in the patch", l)
					}
				}
			}
		}
	})
}
