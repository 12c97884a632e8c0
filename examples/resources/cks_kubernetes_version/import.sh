# Import a Kubernetes version by its id. checksum is returned without its
# algorithm, so it is null after the import; setting it afterwards only
# records it (no replacement).
terraform import cks_kubernetes_version.v1_34 5a1b6e5c-8c9d-4b43-a7cf-7d4a1f0e2b61
