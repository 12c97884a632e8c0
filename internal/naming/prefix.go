package naming

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// Prefix length limits used by CloudStack when it truncates name prefixes.
const (
	// MaxClusterPrefixLength is the control/worker prefix limit since #10778.
	MaxClusterPrefixLength = 43
	// MaxLegacyClusterPrefixLength is the control/worker prefix limit before #10778.
	MaxLegacyClusterPrefixLength = 40
	// MaxEtcdPrefixLength is the etcd prefix limit, the "-etcd" suffix included.
	MaxEtcdPrefixLength = 40
)

const (
	generatedPrefix = "k8s-"
	etcdSuffix      = "-etcd"
	maxLabelLength  = 63
)

// ClusterPrefix returns the prefix CKS gives control and worker VM names of a
// cluster in CloudStack 4.21 and later (#10778): the lowercased name when it
// is a valid host name label, otherwise "k8s-" plus the name stripped to
// [a-z0-9-] (or the uuid when nothing is left), cut to 43 characters.
func ClusterPrefix(name, uuid string) string {
	p := javaLowerCase(name)
	if isHostNameLabel(p) {
		return truncateUTF16(p, MaxClusterPrefixLength)
	}
	return truncateUTF16(generatedPrefix+strippedOrUUID(p, uuid, isLowerAlnumOrHyphen), MaxClusterPrefixLength)
}

// LegacyClusterPrefix returns the control/worker prefix of CloudStack before
// #10778 (4.19.x up to 4.19.3, 4.20.0, 4.20.1): the name as is when it is a
// valid host name label, otherwise "k8s-" plus the name stripped to
// [a-zA-Z0-9-] (or the uuid when nothing is left), cut to 40 characters.
func LegacyClusterPrefix(name, uuid string) string {
	p := name
	if !isHostNameLabel(p) {
		p = generatedPrefix + strippedOrUUID(p, uuid, isAlnumOrHyphen)
	}
	return truncateUTF16(p, MaxLegacyClusterPrefixLength)
}

// EtcdPrefix returns the prefix of etcd VM names: the name with its case kept
// (stripped to [a-zA-Z0-9-] when it is not a valid host name label, the uuid
// when nothing is left), plus "-etcd", cut to 40 characters. A long name can
// lose all or part of the "-etcd" suffix.
func EtcdPrefix(name, uuid string) string {
	p := name
	if !isHostNameLabel(p) {
		p = strippedOrUUID(p, uuid, isAlnumOrHyphen)
	}
	return truncateUTF16(p+etcdSuffix, MaxEtcdPrefixLength)
}

// isHostNameLabel mirrors NetUtils.verifyDomainNameLabel(label, true): 1..63
// characters, only letters, digits and hyphens (checked after Java's
// lowercasing), no leading or trailing hyphen and no leading digit.
func isHostNameLabel(label string) bool {
	n := utf16Len(label)
	if n < 1 || n > maxLabelLength {
		return false
	}
	for _, r := range javaLowerCase(label) {
		if !isLowerAlnumOrHyphen(r) {
			return false
		}
	}
	first, last := label[0], label[len(label)-1]
	if first == '-' || last == '-' {
		return false
	}
	return first < '0' || first > '9'
}

// javaLowerCase lowercases like Java's String.toLowerCase in a non-Turkish
// locale. It differs from strings.ToLower for U+0130 (capital I with dot),
// which Java turns into "i" plus a combining dot, so the result is not a
// valid label. Other differences never produce ASCII and are stripped anyway.
func javaLowerCase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '\u0130' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// validUUID replaces bytes that are not UTF-8 (which a Java string cannot
// hold) so that every prefix is valid text.
func validUUID(uuid string) string {
	return strings.ToValidUTF8(uuid, "\uFFFD")
}

// strippedOrUUID is s stripped to the runes keep accepts, or the uuid when
// nothing is left: how CKS names a cluster whose name is no host name label.
func strippedOrUUID(s, uuid string, keep func(rune) bool) string {
	if p := keepOnly(s, keep); p != "" {
		return p
	}
	return validUUID(uuid)
}

func keepOnly(s string, keep func(rune) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if keep(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isLowerAlnumOrHyphen(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-'
}

func isAlnumOrHyphen(r rune) bool {
	return isLowerAlnumOrHyphen(r) || r >= 'A' && r <= 'Z'
}

// utf16Len counts UTF-16 code units, the unit of Java's String.length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16RuneLen(r)
	}
	return n
}

// truncateUTF16 keeps at most limit UTF-16 code units, like Java's
// substring(0, limit), without splitting a character in two.
func truncateUTF16(s string, limit int) string {
	n := 0
	for i, r := range s {
		w := utf16RuneLen(r)
		if n+w > limit {
			return s[:i]
		}
		n += w
	}
	return s
}

func utf16RuneLen(r rune) int {
	if w := utf16.RuneLen(r); w > 0 {
		return w
	}
	return 1
}
