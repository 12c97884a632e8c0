# Import a CNI configuration by its id, from any account or project the
# credentials can see.
terraform import cks_cni_configuration.calico 0c5d7a8e-3f41-4d55-9a3b-2c1e7f6d4b90
