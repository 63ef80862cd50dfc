"""A Hydra app whose task raises (a shape error at line 11): Hydra catches it, prints it and exits 1."""
import hydra
import torch


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg):
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    x = torch.randn(3, 5)
    model(x).sum().backward()
    opt.step()


if __name__ == "__main__":
    main()
