package cloudstack

// cloudstack-go's KubernetesCluster reuses its VirtualMachine struct, which
// has no isetcdnode, isexternalnode or kubernetesnodeversion, so clusters are
// decoded from the raw response with these structs instead. Numbers and
// booleans use the flex types to accept both JSON numbers and strings.

// rawClusterList is the body of listKubernetesClustersresponse.
type rawClusterList struct {
	Count    flexInt      `json:"count"`
	Clusters []rawCluster `json:"kubernetescluster"`
}

type rawCluster struct {
	ID                    string         `json:"id"`
	Name                  string         `json:"name"`
	Description           string         `json:"description"`
	ZoneID                string         `json:"zoneid"`
	ZoneName              string         `json:"zonename"`
	KubernetesVersionID   string         `json:"kubernetesversionid"`
	KubernetesVersionName string         `json:"kubernetesversionname"`
	ServiceOfferingID     string         `json:"serviceofferingid"`
	ControlOfferingID     string         `json:"controlofferingid"`
	WorkerOfferingID      string         `json:"workerofferingid"`
	EtcdOfferingID        string         `json:"etcdofferingid"`
	ServiceOfferingName   string         `json:"serviceofferingname"`
	ControlOfferingName   string         `json:"controlofferingname"`
	WorkerOfferingName    string         `json:"workerofferingname"`
	EtcdOfferingName      string         `json:"etcdofferingname"`
	TemplateID            string         `json:"templateid"`
	NetworkID             string         `json:"networkid"`
	Account               string         `json:"account"`
	DomainID              string         `json:"domainid"`
	ProjectID             string         `json:"projectid"`
	Keypair               string         `json:"keypair"`
	ControlNodes          flexInt        `json:"controlnodes"`
	MasterNodes           flexInt        `json:"masternodes"`
	EtcdNodes             flexInt        `json:"etcdnodes"`
	Size                  flexInt        `json:"size"`
	State                 string         `json:"state"`
	Endpoint              string         `json:"endpoint"`
	IPAddress             string         `json:"ipaddress"`
	IPAddressID           string         `json:"ipaddressid"`
	AutoscalingEnabled    flexBool       `json:"autoscalingenabled"`
	MinSize               flexInt        `json:"minsize"`
	MaxSize               flexInt        `json:"maxsize"`
	ClusterType           string         `json:"clustertype"`
	CSIEnabled            *flexBool      `json:"csienabled"`
	CNIConfigurationID    string         `json:"cniconfigurationid"`
	Created               string         `json:"created"`
	VirtualMachines       []rawClusterVM `json:"virtualmachines"`
}

type rawClusterVM struct {
	ID                    string   `json:"id"`
	Name                  string   `json:"name"`
	DisplayName           string   `json:"displayname"`
	State                 string   `json:"state"`
	Created               string   `json:"created"`
	IPAddress             string   `json:"ipaddress"`
	ServiceOfferingID     string   `json:"serviceofferingid"`
	ServiceOfferingName   string   `json:"serviceofferingname"`
	TemplateID            string   `json:"templateid"`
	Nics                  []rawNic `json:"nic"`
	IsEtcdNode            flexBool `json:"isetcdnode"`
	IsExternalNode        flexBool `json:"isexternalnode"`
	KubernetesNodeVersion string   `json:"kubernetesnodeversion"`
}

type rawNic struct {
	IPAddress string   `json:"ipaddress"`
	NetworkID string   `json:"networkid"`
	IsDefault flexBool `json:"isdefault"`
}

func (r rawCluster) toCluster() Cluster {
	control := int64(r.ControlNodes)
	if control == 0 {
		control = int64(r.MasterNodes) // masternodes is the deprecated alias
	}
	c := Cluster{
		ID:                    r.ID,
		Name:                  r.Name,
		Description:           r.Description,
		ZoneID:                r.ZoneID,
		ZoneName:              r.ZoneName,
		KubernetesVersionID:   r.KubernetesVersionID,
		KubernetesVersionName: r.KubernetesVersionName,
		ServiceOfferingID:     r.ServiceOfferingID,
		ControlOfferingID:     r.ControlOfferingID,
		WorkerOfferingID:      r.WorkerOfferingID,
		EtcdOfferingID:        r.EtcdOfferingID,
		TemplateID:            r.TemplateID,
		NetworkID:             r.NetworkID,
		Account:               r.Account,
		DomainID:              r.DomainID,
		ProjectID:             r.ProjectID,
		Keypair:               r.Keypair,
		ControlNodes:          control,
		EtcdNodes:             int64(r.EtcdNodes),
		Size:                  int64(r.Size),
		State:                 r.State,
		Endpoint:              r.Endpoint,
		IPAddress:             r.IPAddress,
		IPAddressID:           r.IPAddressID,
		AutoscalingEnabled:    bool(r.AutoscalingEnabled),
		MinSize:               int64(r.MinSize),
		MaxSize:               int64(r.MaxSize),
		ClusterType:           r.ClusterType,
		CSIEnabled:            r.CSIEnabled != nil && bool(*r.CSIEnabled),
		CSIReported:           r.CSIEnabled != nil,
		CNIConfigurationID:    r.CNIConfigurationID,
		Created:               r.Created,
	}
	for id, name := range map[string]string{r.ServiceOfferingID: r.ServiceOfferingName, r.ControlOfferingID: r.ControlOfferingName,
		r.WorkerOfferingID: r.WorkerOfferingName, r.EtcdOfferingID: r.EtcdOfferingName} {
		if id != "" && name != "" {
			if c.OfferingNames == nil {
				c.OfferingNames = map[string]string{}
			}
			c.OfferingNames[id] = name
		}
	}
	if len(r.VirtualMachines) > 0 {
		c.VirtualMachines = make([]ClusterVM, 0, len(r.VirtualMachines))
		for _, vm := range r.VirtualMachines {
			c.VirtualMachines = append(c.VirtualMachines, vm.toClusterVM())
		}
	}
	return c
}

func (r rawClusterVM) toClusterVM() ClusterVM {
	ip := r.IPAddress
	if ip == "" {
		ip = primaryNicIP(r.Nics)
	}
	return ClusterVM{
		ID:                    r.ID,
		Name:                  r.Name,
		DisplayName:           r.DisplayName,
		State:                 r.State,
		Created:               r.Created,
		IPAddress:             ip,
		ServiceOfferingID:     r.ServiceOfferingID,
		ServiceOfferingName:   r.ServiceOfferingName,
		TemplateID:            r.TemplateID,
		IsEtcdNode:            bool(r.IsEtcdNode),
		IsExternalNode:        bool(r.IsExternalNode),
		KubernetesNodeVersion: r.KubernetesNodeVersion,
	}
}

// primaryNicIP is the default NIC's address, else the first NIC's.
func primaryNicIP(nics []rawNic) string {
	for _, n := range nics {
		if n.IsDefault && n.IPAddress != "" {
			return n.IPAddress
		}
	}
	for _, n := range nics {
		if n.IPAddress != "" {
			return n.IPAddress
		}
	}
	return ""
}
