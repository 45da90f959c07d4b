"""The built-in example behind `opdiff demo`: a small CNN run twice (fp32 golden, fp16 "device")."""
