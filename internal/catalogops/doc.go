// Package catalogops registers, changes and deletes what CKS clusters are
// made from: Kubernetes versions, whose binaries ISO CloudStack downloads in
// the background after the version is added, and CNI configurations, which
// CloudStack keeps as user data. It has no Terraform imports.
//
// The Engine (New) is the entry point. Its methods:
//
//   - Kubernetes versions: AddVersion (never retried; a lost answer is
//     adopted only when exactly one new version matches every parameter),
//     WaitVersionReady (the ISO's download, with progress and the image
//     store's reason when it fails), SetVersionState, GetVersion and
//     DeleteVersion;
//   - CNI configurations: RegisterCNI, GetCNI and DeleteCNI;
//   - who uses them: VersionUsers and CNIUsers, the clusters that refer to a
//     version or a CNI configuration. DeleteVersion and DeleteCNI refuse,
//     before any change, while one does: CloudStack refuses to delete a
//     version in use, and lets a CNI configuration in use be deleted, after
//     which every cluster list that holds one of those clusters fails.
//
// The error types a caller tells apart are in errors.go.
package catalogops
