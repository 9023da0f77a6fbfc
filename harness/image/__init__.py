"""Container images: save + parallel gzip, streaming archive inspection, package rules, running an image offline."""
