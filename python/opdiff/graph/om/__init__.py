"""Reading .om offline models: the header, the partition table, the sub-models and OM2 packages."""
