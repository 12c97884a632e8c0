// Package cmkconfig reads CloudMonkey (cmk) configuration files, the ini files
// that the CloudStack CLI keeps at ~/.cmk/config, so that the provider can use
// the same credentials as an operator's shell.
package cmkconfig

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Profile holds the credentials of one [profile] section.
type Profile struct {
	Name      string
	URL       string
	APIKey    string
	SecretKey string
}

// File is a parsed cmk configuration file.
type File struct {
	// DefaultProfile is the `profile` key of the [core] section, if any.
	DefaultProfile string
	sections       map[string]map[string]string
}

// Load reads and parses the file at path.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f)
}

// Parse parses cmk's ini dialect: `[section]` headers, `key = value` pairs,
// and `#` or `;` comments. Keys are case-insensitive; values keep their case.
func Parse(r io.Reader) (*File, error) {
	file := &File{sections: map[string]map[string]string{}}
	current := ""
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	lineNo := 0
	for scanner.Scan() {
		lineNo++
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") || len(line) < 3 {
				return nil, fmt.Errorf("line %d: malformed section header", lineNo)
			}
			current = strings.TrimSpace(line[1 : len(line)-1])
			if _, ok := file.sections[current]; !ok {
				file.sections[current] = map[string]string{}
			}
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			// Never echo the line: it may hold a secret key.
			return nil, fmt.Errorf("line %d: expected key = value", lineNo)
		}
		if current == "" {
			return nil, fmt.Errorf("line %d: key outside of any [section]", lineNo)
		}
		file.sections[current][strings.ToLower(strings.TrimSpace(key))] = strings.TrimSpace(value)
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if core, ok := file.sections["core"]; ok {
		file.DefaultProfile = core["profile"]
	}
	return file, nil
}

// Profiles lists the profile section names, sorted, excluding [core].
func (f *File) Profiles() []string {
	names := make([]string, 0, len(f.sections))
	for name := range f.sections {
		if name != "core" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Profile returns the named profile, or the [core] default when name is empty.
func (f *File) Profile(name string) (Profile, error) {
	if name == "" {
		name = f.DefaultProfile
	}
	if name == "" {
		return Profile{}, fmt.Errorf("no profile given and the [core] section names no default profile; available profiles: %s", f.available())
	}
	section, ok := f.sections[name]
	if !ok || name == "core" {
		return Profile{}, fmt.Errorf("profile %q not found; available profiles: %s", name, f.available())
	}
	return Profile{
		Name:      name,
		URL:       section["url"],
		APIKey:    section["apikey"],
		SecretKey: section["secretkey"],
	}, nil
}

func (f *File) available() string {
	names := f.Profiles()
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
