// Package kubectlout parses the text kubectl prints for `get nodes`, tolerating
// what real terminals and SSH sessions add around it: blank lines, CRLF line
// ends, `Warning:` lines, klog lines and extra columns.
package kubectlout
