package cloudstack

// SetPageSize makes c read lists n rows a page, so that a test against the
// simulator pages with a handful of objects.
func SetPageSize(c *Client, n int) { c.pageSize = n }
