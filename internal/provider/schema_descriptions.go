package provider

// Descriptions shared by the schemas of several resources and data sources.

const kubernetesVersionDescription = "Semantic Kubernetes version of the cluster, such as `1.32.1`, read from the name " +
	"of the CKS version it references (`kubernetesversionname`, e.g. `v1.32.1`), so that policies need not look up " +
	"version ids. Null when that name is not a version (an administrator may name versions freely)."
